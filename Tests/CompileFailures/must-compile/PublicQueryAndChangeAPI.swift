// Must compile outside the module (no @testable): the query and change-stream API on every
// collection, as an application writes it. A member declared in an extension of an internal
// protocol compiles inside Floe but is invisible here; this file catches that.
import Foundation
import Floe

final class Pet: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var weight = 0.0
    @Persisted var born = Date()
    @Persisted(originProperty: "pets") var owners: LinkingObjects<Owner>
}

final class Owner: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var pets: List<Pet>
    @Persisted var favourites: MutableSet<Pet>
    @Persisted var byName: Map<String, Pet?>
    @Persisted var scores: List<Int>
}

extension Realm {
    func queries(_ owner: Owner) throws {
        let pets = objects(Pet.self)
        _ = try pets.where { $0.age > 3 && $0.name.starts(with: "R") }.sorted(byKeyPath: "age").filter("weight > %@", 2.0)
        _ = try pets.sorted(by: \.age, ascending: false).distinct(by: ["name"])
        // SortDescriptor from a string, a string literal and a key path; Floe's, spelled out
        // where Foundation's generic SortDescriptor is visible too.
        _ = try pets.sorted(by: [Floe.SortDescriptor(keyPath: "age", ascending: false), "name", try Floe.SortDescriptor(keyPath: \Pet.weight)])
        _ = try pets.sectioned(by: \.name, ascending: true)
        let total: Int = try pets.sum(ofProperty: "age")
        let oldest: Int? = try pets.max(ofProperty: "age")
        let mean: Double? = try pets.average(ofProperty: "weight")
        _ = (total, oldest, mean)
        _ = try pets.sum(of: \.age)
        for collection in [AnyRealmCollection(owner.pets), AnyRealmCollection(owner.favourites)] {
            _ = try collection.filter("age > 1").count
        }
        _ = try owner.pets.filter("age > 1").sorted(byKeyPath: "name").where { $0.weight < 10 }
        _ = try owner.pets.where { $0.age > 1 }
        _ = try owner.favourites.where { $0.age > 1 }.sorted(by: \.name)
        _ = try owner.byName.values.filter("age > 1")
        _ = try owner.pets.first!.owners.where { $0.name == "Ada" }
        _ = try owner.pets.sectioned(by: \.name, ascending: true)
        let petAges: Int = try owner.pets.sum(ofProperty: "age")
        _ = petAges
        _ = owner.scores.sum()
        _ = owner.scores.max()
    }

    func streams(_ owner: Owner) throws {
        _ = try owner.changes
        _ = try owner.changes(keyPaths: ["name", "pets.name"])
        _ = try objects(Pet.self).changes
        _ = try owner.pets.changes
        _ = try owner.favourites.changes
        _ = try owner.byName.changes
        _ = try changes
    }
}

func consume(_ realm: Realm) async throws {
    let stream = try await realm.read { realm in try realm.objects(Pet.self).changes }
    for await change in stream {
        switch change {
        case .initial(let pets): print(pets.count)
        case .update(let pets, let deletions, let insertions, let modifications):
            print(pets.count, deletions, insertions, modifications)
        }
    }
    try await realm.write(withoutNotifying: [stream]) { realm in
        try realm.create(Pet.self, value: ["id": 1])
        return ()
    }
    for try await transaction in try await realm.changeFeed(since: 0) {
        print(transaction.version)
    }
}

extension Realm {
    func sectionStreams() throws {
        let sections = try objects(Pet.self).sectioned(by: \.name, ascending: true)
        let stream: SectionedResultsChanges<String, Pet> = try sections.changes
        _ = stream
    }
}

func consumeSections(_ stream: SectionedResultsChanges<String, Pet>) async {
    for await change in stream {
        switch change {
        case .initial(let sections): print(sections.allKeys)
        case .update(_, let deletions, let insertions, let modifications, let sectionsToInsert, let sectionsToDelete):
            print(deletions, insertions, modifications, sectionsToInsert, sectionsToDelete)
        }
    }
}

func frozenQueries(_ frozen: FrozenResults<Pet>) throws {
    _ = try frozen.filter("age > %@", 1).sorted(byKeyPath: "name").distinct(by: ["name"])
    _ = try frozen.where { $0.age > 1 }.sorted(by: \.age)
}

extension Realm {
    func positions(_ owner: Owner) throws {
        let pets = objects(Pet.self)
        _ = pets.realm === self
        _ = pets.isInvalidated
        _ = try pets.index(matching: "age > %@", 3)
        _ = try pets.index(matching: { $0.age > 3 })
        _ = try owner.pets.index(matching: "age > 3")
        _ = pets.objects(at: IndexSet([0]))
        _ = owner.pets.realm
    }
}

func files(_ realm: Realm) async throws {
    let schema: Schema = await realm.schema
    _ = schema["Pet"]?.primaryKeyProperty
    _ = try Realm.deleteFiles(for: Realm.Configuration(fileURL: URL(fileURLWithPath: "gone.floe")))
}
