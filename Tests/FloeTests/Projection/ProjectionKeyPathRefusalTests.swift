import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// A projection whose key path reads no persisted property of the root is refused wherever a
/// projection of it is made, each entry point in its own shape (a throw, the enclosing read
/// or write throwing, or a frozen realm's `checkIntegrity()`).
@Suite struct ProjectionKeyPathRefusalTests {
    typealias Computed = Projections.Computed

    class Shelf: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var title = ""
        @Persisted var books = List<Projections.Computed>()
        var pages: Int { 7 }
    }

    /// A plain `var` of the root, projected.
    class PlainVarProjection: Projection<Shelf> {
        @Projected(\Shelf.title) var title
        @Projected(\Shelf.pages) var pages
    }

    /// A list mapped with `projectTo` to its elements' plain `var`.
    class MappedPlainVarProjection: Projection<Shelf> {
        @Projected(\Shelf.title) var title
        @Projected(\Shelf.books.projectTo.nothing) var bookNothings: ProjectedCollection<Int>
    }

    class GoodProjection: Projection<Shelf> {
        @Projected(\Shelf.title) var title
        @Projected(\Shelf.books.projectTo.name) var bookNames: ProjectedCollection<String>
    }

    func realm() async throws -> Realm {
        try await inMemoryRealm("projection-refusal", objectTypes: [Shelf.self, Computed.self])
    }

    func seeded() async throws -> Realm {
        let realm = try await realm()
        try await realm.write { realm in
            let shelf = try realm.create(Shelf.self, value: ["id": 1, "title": "poems"])
            shelf.books.append(try realm.create(Computed.self, value: ["name": "odes"]))
        }
        return realm
    }

    /// Whether `error` is the refusal of `property` of `projection`, naming the root class.
    static func isRefusal(_ error: any Error, of projection: String, property: String) -> Bool {
        guard case FloeError.invalidKeyPath(let className, let keyPath, let reason) = error else { return false }
        let message = "\(error)"
        return className == projection && keyPath == property && reason.contains("no @Persisted property")
            && message.contains(projection) && message.contains(property) && (reason.contains("Shelf") || reason.contains("Computed"))
    }

    @Test func theVerdictNamesTheProjectionThePropertyAndTheRootClass() {
        #expect { try ProjectionSchema.properties(of: PlainVarProjection.self) } throws: {
            Self.isRefusal($0, of: "PlainVarProjection", property: "pages") && "\($0)".contains("on Shelf")
        }
        #expect { try ProjectionSchema.properties(of: MappedPlainVarProjection.self) } throws: {
            Self.isRefusal($0, of: "MappedPlainVarProjection", property: "bookNothings")
        }
        #expect(throws: Never.self) { try ProjectionSchema.properties(of: GoodProjection.self) }
    }

    @Test func initProjectingAManagedObjectMakesTheEnclosingReadThrow() async throws {
        let realm = try await seeded()
        await #expect {
            try await realm.read { realm in
                let projection = PlainVarProjection(projecting: realm.objects(Shelf.self)[0])
                return projection.title
            }
        } throws: { Self.isRefusal($0, of: "PlainVarProjection", property: "pages") }
        await #expect {
            try await realm.read { realm in MappedPlainVarProjection(projecting: realm.objects(Shelf.self)[0]).title }
        } throws: { Self.isRefusal($0, of: "MappedPlainVarProjection", property: "bookNothings") }
        // A good projection made the same way reads, and the read returns.
        let title = try await realm.read { realm in GoodProjection(projecting: realm.objects(Shelf.self)[0]).title }
        #expect(title == "poems")
    }

    @Test func initProjectingInAWriteRollsTheWriteBack() async throws {
        let realm = try await seeded()
        await #expect {
            try await realm.write { realm in
                let shelf = try realm.create(Shelf.self, value: ["id": 2, "title": "prose"])
                realm.objects(Shelf.self)[0].title = "changed"
                _ = PlainVarProjection(projecting: shelf)
            }
        } throws: { Self.isRefusal($0, of: "PlainVarProjection", property: "pages") }
        let titles = try await realm.read { realm in realm.objects(Shelf.self).map(\.title) }
        #expect(titles == ["poems"])
    }

    @Test func everyLiveEntryPointRefusesIt() async throws {
        let realm = try await seeded()
        let refused = { (error: any Error) in Self.isRefusal(error, of: "PlainVarProjection", property: "pages") }
        await #expect { try await realm.read { realm in realm.objects(PlainVarProjection.self).count } } throws: { refused($0) }
        await #expect { try await realm.read { realm in realm.object(ofType: PlainVarProjection.self, forPrimaryKey: 1)?.title } } throws: { refused($0) }
        // Projections made by subscripting or iterating results built from the root's results.
        await #expect {
            try await realm.read { realm in ProjectionResults<PlainVarProjection>(rootResults: realm.objects(Shelf.self))[0].title }
        } throws: { refused($0) }
        await #expect {
            try await realm.read { realm in ProjectionResults<PlainVarProjection>(rootResults: realm.objects(Shelf.self)).map(\.title) }
        } throws: { refused($0) }
        // The throwing forms throw at once.
        try await realm.read { realm in
            let all = ProjectionResults<PlainVarProjection>(rootResults: realm.objects(Shelf.self))
            #expect(throws: FloeError.self) { try all.freeze() }
            #expect(throws: FloeError.self) { try all.sorted(byKeyPath: "title") }
            #expect(throws: FloeError.self) { try all.filter("title == 'poems'") }
            _ = realm.objects(Shelf.self).count
        }
        // A good projection class passes the same checks.
        let count = try await realm.read { realm in realm.objects(GoodProjection.self).count }
        #expect(count == 1)
    }

    @Test func aFrozenRealmsObjectsIsRefusedByCheckIntegrity() async throws {
        let realm = try await seeded()
        let frozen = try await realm.read { realm in try realm.freeze() }
        _ = frozen.objects(GoodProjection.self)
        #expect(throws: Never.self) { try frozen.checkIntegrity() }
        let projections = frozen.objects(MappedPlainVarProjection.self)
        #expect(projections.count == 1)
        #expect { try frozen.checkIntegrity() } throws: { Self.isRefusal($0, of: "MappedPlainVarProjection", property: "bookNothings") }
    }

    @Test func aFrozenRealmsRefusalLeavesLiveReadsAndWritesWorking() async throws {
        let realm = try await seeded()
        let frozen = try await realm.read { realm in try realm.freeze() }
        _ = frozen.objects(MappedPlainVarProjection.self)
        #expect(throws: FloeError.self) { try frozen.checkIntegrity() }
        // The refusal is a mistake in a projection class, not damage to the file: the live realm
        // still reads, writes and projects with a good class.
        try await realm.write { realm in _ = try realm.create(Shelf.self, value: ["id": 2, "title": "prose"]) }
        let titles = try await realm.read { realm in realm.objects(GoodProjection.self).map(\.title) }
        #expect(titles == ["poems", "prose"])
    }

    @Test func aFrozenObjectsProjectionIsRefusedByCheckIntegrity() async throws {
        let realm = try await seeded()
        let frozen = try await realm.read { realm in try realm.freeze() }
        // Results made from the frozen root results directly, not through the realm's objects(_:).
        let projections = FrozenProjectionResults<PlainVarProjection>(rootResults: frozen.objects(Shelf.self))
        #expect(throws: Never.self) { try frozen.checkIntegrity() }
        #expect(projections[0].title == "poems")
        #expect { try frozen.checkIntegrity() } throws: { Self.isRefusal($0, of: "PlainVarProjection", property: "pages") }
    }

    @Test func anUnmanagedObjectsProjectionReadsItAndIsRefusedWhenUsedWithARealm() async throws {
        let shelf = Shelf()
        shelf.title = "loose"
        let projection = PlainVarProjection(projecting: shelf)
        #expect(projection.title == "loose")
        #expect(projection.pages == 7)
        #expect { try projection.freeze() } throws: { Self.isRefusal($0, of: "PlainVarProjection", property: "pages") }
    }
}
