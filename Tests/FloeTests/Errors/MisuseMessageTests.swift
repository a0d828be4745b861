import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// What a user coming from Realm met when trying Floe: each misuse is a typed error whose
/// message names the class, property and value — never a default value, never a silent nil,
/// never an address or an engine word — and the failed write leaves the realm as it was.
@Suite struct MisuseMessageTests {
    final class Hound: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var born = Date(timeIntervalSince1970: 0)
        @Persisted var keeper: Keeper?
        var initial: String { String(name.prefix(1)) }
    }

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("misuse", objectTypes: [Hound.self, Keeper.self])
        try await realm.asyncWrite { realm in
            for id in 0..<4 { try realm.create(Hound.self, value: ["id": id, "name": "h\(id)", "age": id * 3]) }
        }
        return realm
    }

    static func message(_ body: @Sendable @escaping (borrowing Realm.ReadTransaction) throws -> Void, in realm: Realm) async -> String? {
        do {
            try await realm.read { realm in try body(realm) }
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test func aggregatesRefuseAResultTypeThatCannotHoldThem() async throws {
        let realm = try await Self.makeRealm()
        let cases: [(String, @Sendable (borrowing Realm.ReadTransaction) throws -> Void)] = [
            ("min as String", { realm in let _: String? = try realm.objects(Hound.self).min(ofProperty: "age") }),
            ("max as Date", { realm in let _: Date? = try realm.objects(Hound.self).max(ofProperty: "age") }),
            ("sum as String", { realm in let _: String = try realm.objects(Hound.self).sum(ofProperty: "age") }),
            ("max of a date as Int", { realm in let _: Int? = try realm.objects(Hound.self).max(ofProperty: "born") }),
            ("over nothing too", { realm in let _: String? = try realm.objects(Hound.self).filter("age > 100").min(ofProperty: "age") }),
        ]
        for (label, body) in cases {
            let text = await Self.message(body, in: realm)
            #expect(text?.contains("Hound") == true && text?.contains("cannot be read as") == true, "\(label): \(text ?? "no error")")
        }
        // What fits still works: an Int property read as Int, Double or Decimal128; a date as a date.
        let fitting = try await realm.read { realm in
            let dogs = realm.objects(Hound.self)
            let asInt: Int? = try dogs.max(ofProperty: "age")
            let asDouble: Double? = try dogs.average(ofProperty: "age")
            let total: Decimal128 = try dogs.sum(ofProperty: "age")
            let latest: Date? = try dogs.max(ofProperty: "born")
            return "\(asInt ?? -1) \(asDouble ?? -1) \(total) \(latest != nil)"
        }
        #expect(fitting == "9 4.5 18 true")
    }

    @Test func aPrimaryKeyOfTheWrongTypeMakesTheReadThrow() async throws {
        let realm = try await Self.makeRealm()
        let text = await Self.message({ realm in _ = realm.object(ofType: Hound.self, forPrimaryKey: "1") }, in: realm)
        #expect(text == "Invalid value \"1\" for 'Hound.id': expected Int.")
        #expect(try await realm.read { realm in realm.object(ofType: Hound.self, forPrimaryKey: 1)?.name } == "h1")
    }

    @Test func deletingAnObjectTwiceIsAnErrorAndTheWriteRollsBack() async throws {
        let realm = try await Self.makeRealm()
        let error = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                let hound = realm.object(ofType: Hound.self, forPrimaryKey: 2)!
                try realm.delete(hound)
                try realm.delete(hound)
            }
        }
        #expect(error?.description.contains("The Hound object was already deleted") == true, "\(String(describing: error))")
        #expect(try await realm.read { realm in realm.objects(Hound.self).count } == 4)
        // A sequence holding one object twice deletes it once.
        try await realm.write { realm in
            let hound = realm.object(ofType: Hound.self, forPrimaryKey: 2)!
            let again = realm.object(ofType: Hound.self, forPrimaryKey: 2)!
            try realm.delete([hound, again])
        }
        #expect(try await realm.read { realm in realm.objects(Hound.self).map(\.id) } == [0, 1, 3])
    }

    @Test func messagesSayWhatIsWrongInTheUsersWords() async throws {
        let realm = try await Self.makeRealm()
        let computed = await Self.message({ realm in _ = try realm.objects(Hound.self).where { $0.initial == "h" }.count }, in: realm)
        #expect(computed?.contains("0x") == false && computed?.contains("computed") == true && computed?.contains("name") == true,
                "\(computed ?? "no error")")
        let wrongLink = await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in try realm.create(Hound.self, value: ["id": 9, "keeper": 42]) }
        }
        #expect(wrongLink?.description == "Invalid value 42 for 'Hound.keeper': expected Keeper?.")
        let longArray = await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in try realm.create(Hound.self, value: [10, "x", 1, Date(), NSNull(), "extra"]) }
        }
        #expect(longArray?.description == "Hound: an array of 6 values was given, but Hound has 5 persisted properties (an array fills them in declared order).")
        let comparison = await Self.message({ realm in _ = try realm.objects(Hound.self).filter("name > %@", 3).count }, in: realm)
        #expect(comparison == "Invalid predicate 'name > %@' at position 0 ('name'): value 3 for 'Hound.name': expected String (to compare with name).")
        #expect(try await realm.read { realm in realm.objects(Hound.self).count } == 4)
    }
}
