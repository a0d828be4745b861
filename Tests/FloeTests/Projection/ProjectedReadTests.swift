import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

// A projected property keeps what its first read of a managed root learnt (the compiled read,
// and the root's own property it reads) in its field, and reads each later value by the
// root's column. These tests check that what is kept stays right: across realms whose stored
// columns are in different orders (after a migration), across projection classes of different
// roots, and for one projection kept across writes and deletions.

enum ProjectedReadModels {
    /// Stored as "ProjectedShelf" with two properties.
    final class Shelf: Object {
        override class func className() -> String { "ProjectedShelf" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
        @Persisted var count = 0
    }

    /// "ProjectedShelf" with a property added in front of the others and the others reordered:
    /// a file migrated from ``Shelf`` keeps its old columns, a new file stores this order.
    final class ShelfV2: Object {
        override class func className() -> String { "ProjectedShelf" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var label = ""
        @Persisted var count = 0
        @Persisted var title = ""
    }

    final class ShelfProjection: Projection<ShelfV2> {
        @Projected(\ShelfV2.title) var title
        @Projected(\ShelfV2.count) var count
        @Projected(\ShelfV2.label) var label
    }

    /// The same root property positions as ``Projections/KeyedProjection`` reads, of another class.
    final class PersonNames: Projection<Projections.Person> {
        @Projected(\Projections.Person.lastName) var last
        @Projected(\Projections.Person.firstName) var first
        @Projected(\Projections.Person.address?.country) var country
    }
}

@Suite struct ProjectedReadTests {
    typealias Shelf = ProjectedReadModels.Shelf
    typealias ShelfV2 = ProjectedReadModels.ShelfV2
    typealias ShelfProjection = ProjectedReadModels.ShelfProjection

    @Test func projectedReadsFollowEachRealmsColumnsAfterAMigration() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Shelf.self]))
            try await realm.write { realm in
                try realm.create(Shelf.self, value: ["id": 1, "title": "old one", "count": 5])
                try realm.create(Shelf.self, value: ["id": 2, "title": "old two", "count": 6])
            }
        }
        var configuration = Realm.Configuration(fileURL: url, schemaVersion: 1, objectTypes: [ShelfV2.self])
        configuration.migrationBlock = { migration, _ in
            migration.enumerateObjects(ofType: "ProjectedShelf") { old, new in
                new!["label"] = "migrated \(old!["id"] as! Int)"
            }
        }
        let migrated = try await Realm(configuration: configuration)
        let fresh = try await inMemoryRealm("projected-reads", objectTypes: [ShelfV2.self])
        try await fresh.write { realm in
            _ = try realm.create(ShelfV2.self, value: ["id": 1, "label": "new one", "count": 9, "title": "fresh one"])
        }
        let migratedColumns = try await migrated.read { realm in realm.objects(ShelfV2.self)[0]._floeBinding!.tableBinding.columnOfProperty }
        let freshColumns = try await fresh.read { realm in realm.objects(ShelfV2.self)[0]._floeBinding!.tableBinding.columnOfProperty }
        // The point of the test: the same property sits in different columns of the two files.
        #expect(migratedColumns != freshColumns)

        // Each realm's projections read again and again (the first read of each projected
        // property compiles it, the later ones take what its field kept), the realms in turn:
        // the compiled reads are shared by key path, the columns are each realm's own.
        func reads(_ realm: Realm) async throws -> [String] {
            try await realm.read { realm in
                let shelves = Array(realm.objects(ShelfProjection.self))
                var seen: [String] = []
                for _ in 0..<3 {
                    for shelf in shelves { seen.append("\(shelf.title) \(shelf.count) \(shelf.label)") }
                }
                return seen
            }
        }
        let oldOnce = ["old one 5 migrated 1", "old two 6 migrated 2"]
        #expect(try await reads(migrated) == oldOnce + oldOnce + oldOnce)
        #expect(try await reads(fresh) == ["fresh one 9 new one", "fresh one 9 new one", "fresh one 9 new one"])
        #expect(try await reads(migrated) == oldOnce + oldOnce + oldOnce)
    }

    @Test func projectionsOfTwoRootClassesReadTheirOwnProperties() async throws {
        let realm = try await inMemoryRealm("projected-reads", objectTypes: [Projections.Person.self, Projections.Address.self, Projections.Keyed.self])
        try await realm.write { realm in
            try realm.create(Projections.Person.self, value: ["firstName": "Ana", "lastName": "Silva", "address": ["city": "Lisbon", "country": "PT"]])
            try realm.create(Projections.Person.self, value: ["firstName": "Bo", "lastName": "Berg"])
            let one = try realm.create(Projections.Keyed.self, value: ["id": 1, "name": "one", "secret": "s1"])
            try realm.create(Projections.Keyed.self, value: ["id": 2, "name": "two", "secret": "s2", "best": one])
        }
        let lines = try await realm.read { realm -> [String] in
            var lines: [String] = []
            // `Keyed.name` and `Person.lastName` are both the second property of their class.
            for _ in 0..<2 {
                for (person, keyed) in zip(realm.objects(ProjectedReadModels.PersonNames.self), realm.objects(Projections.KeyedProjection.self)) {
                    let full = realm.objects(Projections.PersonProjection.self).map { "\($0.firstName)/\($0.homeCity ?? "-")" }
                    lines.append("\(person.first) \(person.last) \(person.country ?? "-") | \(keyed.title) \(keyed.bestName ?? "-") | \(full)")
                }
            }
            return lines
        }
        let once = ["Ana Silva PT | one - | [\"Ana/Lisbon\", \"Bo/-\"]", "Bo Berg - | two one | [\"Ana/Lisbon\", \"Bo/-\"]"]
        #expect(lines == once + once)
    }

    @Test func aProjectionKeptAcrossWritesAndDeletionsReadsItsOwnRow() async throws {
        let realm = try await inMemoryRealm("projected-reads", objectTypes: [Projections.Keyed.self])
        let seen = try await realm.keptProjectionReads()
        #expect(seen == [
            "four two",        // first reads (compiling)
            "four two",        // compiled
            "FOUR two",        // after a write to the root
            "FOUR TWO",        // after a write to the linked object
            "FOUR -",          // the linked object deleted: the link is nil
            "FOUR -",          // rows before it deleted: the root's row moved
            "four again -",    // a later write transaction
            "deleted",         // the root deleted
        ])
    }

    @Test func aProjectionOfAnUnmanagedObjectReadsItOnceAdded() async throws {
        let realm = try await inMemoryRealm("projected-reads", objectTypes: [Projections.Keyed.self])
        let seen = try await realm.write { realm -> [String] in
            let keyed = Projections.Keyed()
            keyed.id = 7
            keyed.name = "loose"
            let projection = Projections.KeyedProjection(projecting: keyed)
            var seen = ["\(projection.title) \(projection.isManaged)"]
            try realm.add(keyed)
            keyed.name = "stored"
            seen.append("\(projection.title) \(projection.isManaged)")
            seen.append("\(projection.title) \(projection.isManaged)")
            keyed.name = "stored again"
            seen.append(projection.title)
            return seen
        }
        #expect(seen == ["loose false", "stored true", "stored true", "stored again"])
        let stored = try await realm.read { realm in realm.objects(Projections.KeyedProjection.self).map(\.title) }
        #expect(stored == ["stored again"])
    }

    @Test func projectionsKeptAcrossRolledBackWritesReadTheirOwnRowsCommittedValues() async throws {
        let realm = try await inMemoryRealm("projected-reads", objectTypes: [ShelfV2.self])
        let seen = try await realm.rolledBackProjectionReads()
        #expect(seen == [
            "three 30 | one 10",          // first reads (each field keeps its column and binding)
            "three 30 | one 10",          // the kept column and binding
            "THREE 33 | one 11",          // inside a write, after writes to both roots
            "THREE 33 | one 11",          // rows before the third deleted and new rows added
            "three 30 | one 10",          // that write cancelled
            "three 30 | one 10",          // a write through the projections that threw
            "three 30 | -",               // the first root deleted, the rows before the third gone
            "three 30",                   // a later write's values (the third's row moved)
            "three 31",
        ])
    }
}

extension Realm {
    /// Two projections of `ShelfV2` objects (the third and the first) kept across a cancelled
    /// write that moved rows, a write that threw, and committed deletions before their rows.
    fileprivate func rolledBackProjectionReads() throws -> [String] {
        typealias ShelfV2 = ProjectedReadModels.ShelfV2
        typealias ShelfProjection = ProjectedReadModels.ShelfProjection
        struct Refused: Error {}
        let names = ["one", "two", "three", "four"]
        let (third, first) = try write { () -> (ShelfProjection, ShelfProjection) in
            for id in 1...4 { try create(ShelfV2.self, value: ["id": id, "title": names[id - 1], "count": id * 10]) }
            return (object(ofType: ShelfProjection.self, forPrimaryKey: 3)!, object(ofType: ShelfProjection.self, forPrimaryKey: 1)!)
        }
        var seen: [String] = []
        func look(_ includeFirst: Bool = true) {
            let firstLine = includeFirst ? (first.rootObject.isInvalidated ? "-" : "\(first.title) \(first.count)") : nil
            seen.append(["\(third.title) \(third.count)", firstLine].compactMap { $0 }.joined(separator: " | "))
        }
        look()
        look()
        try beginWrite()
        object(ofType: ShelfV2.self, forPrimaryKey: 3)!.title = "THREE"
        object(ofType: ShelfV2.self, forPrimaryKey: 3)!.count = 33
        first.count = 11
        look()
        try delete(object(ofType: ShelfV2.self, forPrimaryKey: 2)!)
        for id in 5...40 { try create(ShelfV2.self, value: ["id": id, "title": "new \(id)", "count": id]) }
        look()
        cancelWrite()
        look()
        #expect(throws: Refused.self) {
            try write {
                third.count = 77
                first.title = "refused"
                throw Refused()
            }
        }
        look()
        try write {
            try delete(object(ofType: ShelfV2.self, forPrimaryKey: 2)!)
            try delete(first.rootObject)
        }
        look()
        look(false)
        try write { third.count = 31 }
        look(false)
        return seen
    }
}

extension Realm {
    /// One projection of a `Keyed` object kept across writes, deletions of its linked object
    /// and of rows before its own, and its root's deletion.
    fileprivate func keptProjectionReads() throws -> [String] {
        var seen: [String] = []
        let projection = try write { () -> Projections.KeyedProjection in
            for id in 1...5 { try create(Projections.Keyed.self, value: ["id": id, "name": ["one", "two", "three", "four", "five"][id - 1]]) }
            let four = object(ofType: Projections.Keyed.self, forPrimaryKey: 4)!
            four.best = object(ofType: Projections.Keyed.self, forPrimaryKey: 2)!
            return object(ofType: Projections.KeyedProjection.self, forPrimaryKey: 4)!
        }
        func look() { seen.append("\(projection.title) \(projection.bestName ?? "-")") }
        look()
        look()
        try write {
            object(ofType: Projections.Keyed.self, forPrimaryKey: 4)!.name = "FOUR"
            look()
            object(ofType: Projections.Keyed.self, forPrimaryKey: 2)!.name = "TWO"
            look()
            try delete(object(ofType: Projections.Keyed.self, forPrimaryKey: 2)!)
            look()
        }
        try write {
            try delete(object(ofType: Projections.Keyed.self, forPrimaryKey: 1)!)
            try delete(object(ofType: Projections.Keyed.self, forPrimaryKey: 3)!)
        }
        look()
        try write { projection.title = "four again" }
        look()
        try write { try delete(projection.rootObject) }
        seen.append(projection.rootObject.isInvalidated ? "deleted" : "still there")
        return seen
    }
}
