import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// A class held in a metatype variable of a base type (`let type: Object.Type = Cat.self`):
/// `create(type, value:)` writes that class, and `objects(type)` reads it — counted, filtered,
/// sorted, aggregated, sectioned, frozen, thawed, observed and deleted as that class, as in
/// Realm. There is no polymorphism: `Animal`'s own objects are not Cats, nor Cats Animals.
@Suite struct MetatypeResultsTests {
    static func realm() async throws -> Realm {
        let realm = try await inMemoryRealm("metatype", objectTypes: [Animal.self, Cat.self])
        try await realm.write { realm in
            let type: Object.Type = Cat.self
            _ = try realm.create(type, value: ["name": "Tom", "lives": 7])
            _ = try realm.create(Cat.self, value: ["name": "Felix"])
            _ = try realm.create(Animal.self, value: ["name": "Generic"])
        }
        return realm
    }

    @Test func objectsOfAMetatypeVariableReadTheClassItHolds() async throws {
        let realm = try await Self.realm()
        let read = try await realm.read { realm -> [String] in
            let type: Object.Type = Cat.self
            let animalType: Animal.Type = Cat.self
            let cats = realm.objects(type)
            return [
                "\(cats.count) \(realm.objects(Cat.self).count) \(realm.objects(Animal.self).count)",
                cats.map { "\(Swift.type(of: $0))" }.joined(separator: ","),
                realm.objects(animalType).map(\.name).joined(separator: ","),
                realm.objects(Animal.self).map(\.name).joined(separator: ","),
                "\(try cats.filter("lives < %@", 8).count)",
                try cats.sorted(byKeyPath: "lives").map { ($0 as! Cat).name }.joined(separator: ","),
                "\(try cats.sum(ofProperty: "lives") as Int)",
                try cats.sectioned(by: { ($0 as! Cat).lives > 8 }, sortDescriptors: ["lives"]).map { "\($0.key) \($0.count)" }.joined(separator: ","),
                "\(try cats.freeze().count) \(try realm.freeze().objects(type).count)",
            ]
        }
        #expect(read == ["2 2 1", "Cat,Cat", "Tom,Felix", "Generic", "1", "Tom,Felix", "16", "false 1,true 1", "2 2"])
    }

    @Test func resultsOfAMetatypeVariableThawObserveAndDelete() async throws {
        let realm = try await Self.realm()
        let frozen = try await realm.read { realm in
            let type: Object.Type = Cat.self
            return try realm.objects(type).freeze()
        }
        #expect(frozen.map { ($0.makeModel() as? Cat)?.name } == ["Tom", "Felix"])
        #expect(try await realm.read { realm in realm.thaw(frozen).count } == 2)
        var changes = try await realm.read { realm in
            let type: Object.Type = Cat.self
            return try realm.objects(type).changes
        }.makeAsyncIterator()
        guard case .initial(let initial) = await changes.next() else { Issue.record("expected .initial"); return }
        #expect(initial.count == 2)
        try await realm.write { realm in
            let type: Object.Type = Cat.self
            _ = try realm.create(type, value: ["name": "Garfield"])
        }
        guard case .update(let cats, _, let insertions, _) = await changes.next() else { Issue.record("expected .update"); return }
        #expect(cats.map { ($0.makeModel() as? Cat)?.name } == ["Tom", "Felix", "Garfield"])
        #expect(insertions == [2])
        let left = try await realm.write { realm in
            let type: Object.Type = Cat.self
            try realm.delete(realm.objects(type))
            return "\(realm.objects(Cat.self).count) \(realm.objects(Animal.self).count)"
        }
        #expect(left == "0 1")
    }
}
