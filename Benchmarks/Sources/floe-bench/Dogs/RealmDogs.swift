import Floe
import Foundation

/// The design's Dog as an object-API model class, for the W workloads.
///
/// Named apart from the GRDB record type; its table is "RealmDog".
final class RealmDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var weight = 0.0

    /// An unmanaged dog holding row `index` of the data set.
    convenience init(index: Int) {
        self.init()
        id = index
        name = Dog.name(index)
        age = Dog.age(index)
        color = Dog.color(index)
        weight = Dog.weight(index)
    }
}

/// Opening and filling realms of dogs through the public object API.
enum RealmDogs {
    /// A realm holding only `RealmDog`, each commit synced to the disk (`.full`) unless told otherwise.
    static func open(at path: String, durability: Realm.Durability = .full) async throws -> Realm {
        try await Realm(configuration: Realm.Configuration(
            fileURL: URL(fileURLWithPath: path), objectTypes: [RealmDog.self], durability: durability))
    }

    /// Adds dogs `0..<count` in one write.
    static func add(count: Int, to realm: Realm) async throws {
        try await realm.write { realm in
            for index in 0..<count { try realm.add(RealmDog(index: index)) }
        }
    }

    /// The number of dogs in the realm now.
    static func count(in realm: Realm) async throws -> Int {
        try await realm.read { realm in realm.objects(RealmDog.self).count }
    }

    /// The sum of every dog's age, read through the objects.
    static func ageSum(in realm: Realm) async throws -> Int64 {
        try await realm.read { realm in
            realm.objects(RealmDog.self).reduce(Int64(0)) { $0 + Int64($1.age) }
        }
    }
}
