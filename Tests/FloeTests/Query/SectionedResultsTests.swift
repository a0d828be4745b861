import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Sections: the seed's contacts by first letter, checked against Swift's grouping of the
/// same objects; live after writes, frozen across tasks.
@Suite struct SectionedResultsTests {
    final class Contact: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0

        var firstLetter: String { name.first.map { String($0) } ?? "" }
    }

    static let names = ["Larry", "Liam", "Lisa", "Ada", "Bo", "Élodie", "Zoë", "Ωmega", "", "lars", "Ben"]

    static func makeRealm(count: Int = 200) async throws -> Realm {
        let realm = try await inMemoryRealm("sections")
        try await realm.asyncWrite { realm in
            var random = SeededGenerator(seed: 5)
            for id in 0..<count {
                try realm.create(Contact.self, value: ["id": id, "name": names.randomElement(using: &random)!, "age": Int.random(in: 0...9, using: &random)])
            }
        }
        return realm
    }

    @Test func contactsByFirstLetter() async throws {
        let realm = try await Self.makeRealm()
        let (keys, sections, byIndexPath, expected) = try await realm.read { realm in
            let contacts = try realm.objects(Contact.self).sorted(byKeyPath: "name")
            let sectioned = try contacts.sectioned(by: \.firstLetter)
            let sections = sectioned.map { section in section.map(\.id) }
            let byIndexPath = sectioned[IndexPath(indexes: [1, 0])].id
            // Swift's grouping: letters in order, each letter's contacts in name order.
            let all = Array(contacts)
            let letters = Set(all.map(\.firstLetter)).sorted()
            let expected = letters.map { letter in all.filter { $0.firstLetter == letter }.map(\.id) }
            return (sectioned.allKeys, sections, byIndexPath, (letters, expected))
        }
        #expect(keys == expected.0)
        #expect(sections == expected.1)
        #expect(keys.contains("L") && keys.contains("l") && keys.contains("É") && keys.first == "")
        #expect(byIndexPath == sections[1][0])
        #expect(sections.map(\.count).reduce(0, +) == 200)
    }

    @Test func manySectionsGroupLikeFewOnes() async throws {
        // Past a few dozen sections the grouping looks keys up by hash instead of comparing
        // them one by one: both must give Swift's grouping, in first-appearance order too.
        let realm = try await Self.makeRealm(count: 600)
        let (byKey, byBlock, expected, firstAppearance) = try await realm.read { realm in
            let contacts = realm.objects(Contact.self)
            let key = { (contact: Contact) in "\(contact.id % 45)-\(contact.age % 3)" }
            let byKey = try contacts.sectioned(by: \.id, ascending: true).count
            let byBlock = try contacts.sectioned(by: key, sortDescriptors: [])
            let all = Array(contacts)
            var order: [String] = []
            for contact in all where !order.contains(key(contact)) { order.append(key(contact)) }
            let expected = order.map { label in all.filter { key($0) == label }.map(\.id) }
            return (byKey, byBlock.map { $0.map(\.id) }, expected, byBlock.allKeys == order)
        }
        #expect(byKey == 600)
        #expect(expected.count > 100 && byBlock == expected, "\(expected.count) sections")
        #expect(firstAppearance)
    }

    @Test func descendingKeysAndTheBlockForm() async throws {
        let realm = try await Self.makeRealm()
        let (descending, byAge, expectedAges) = try await realm.read { realm in
            let contacts = realm.objects(Contact.self)
            let descending = try contacts.sectioned(by: \.age, ascending: false).allKeys
            let byAge = try contacts.sectioned(by: { $0.age % 3 }, sortDescriptors: [SortDescriptor(keyPath: "age", ascending: false), "id"])
            let all = Array(contacts).sorted { ($0.age, -$0.id) > ($1.age, -$1.id) }
            var order: [Int] = []
            for contact in all where !order.contains(contact.age % 3) { order.append(contact.age % 3) }
            let expected = order.map { key in all.filter { $0.age % 3 == key }.map(\.id) }
            return (descending, byAge.map { $0.map(\.id) }, (byAge.allKeys, order, expected))
        }
        #expect(descending == Array((0...9).reversed()))
        #expect(expectedAges.0 == expectedAges.1 && byAge == expectedAges.2)
    }

    @Test func sectionsAreLiveAndFreeze() async throws {
        let realm = try await Self.makeRealm(count: 20)
        let (before, after, frozen) = try await realm.write { realm in
            let sectioned = try realm.objects(Contact.self).filter("age < 100").sectioned(by: \.firstLetter)
            let before = sectioned.allKeys
            let frozen = try sectioned.freeze()
            try realm.create(Contact.self, value: ["id": 999, "name": "Quincy"])
            return (before, sectioned.allKeys, frozen)
        }
        #expect(!before.contains("Q") && after.contains("Q"))
        #expect(after.count == before.count + 1)
        let frozenKeys = await Task.detached { (frozen.allKeys, frozen[0].map(\.name), frozen.isFrozen) }.value
        #expect(frozenKeys.0 == before && frozenKeys.2)
        #expect(frozenKeys.1.allSatisfy { $0.first.map(String.init) ?? "" == before[0] })
        let empty = try await realm.read { realm in try realm.objects(Contact.self).filter("age > 100").sectioned(by: \.firstLetter).count }
        #expect(empty == 0)
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Contact.self).sectioned(by: \.age, sortDescriptors: ["agee"]).count }
        }
        #expect(error?.description.contains("Contact has no property 'agee'") == true)
    }
}

extension SectionedResultsTests {
    final class Book: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var contacts: List<Contact>
    }

    @Test func aListsObjectsInSections() async throws {
        let realm = try await Self.makeRealm(count: 60)
        let (sections, expected) = try await realm.write { realm in
            let book = try realm.create(Book.self, value: ["id": 1])
            for contact in realm.objects(Contact.self) where contact.id % 2 == 0 { book.contacts.insert(contact, at: 0) }
            let sections = try book.contacts.sectioned(by: \.age).map { ($0.key, $0.map(\.id)) }
            let members = Array(book.contacts)
            let expected = Set(members.map(\.age)).sorted().map { age in (age, members.filter { $0.age == age }.map(\.id)) }
            return (sections, expected)
        }
        #expect(sections.map(\.0) == expected.map(\.0))
        #expect(sections.map(\.1) == expected.map(\.1), "within a section, the list's order")
        #expect(throws: FloeError.self) { try List<Contact>().sectioned(by: \.age) }
    }
}
