// Must compile: inside the realm's actor, `write { }` takes a closure without arguments, as in
// Realm, returning a value or nothing; so does `write(withoutNotifying:)`. From outside, the
// closure takes the transaction.
import Floe

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

extension Realm {
    func adopt(_ dog: Dog) throws -> Int {
        try write { try add(dog) }
        try write(withoutNotifying: []) { try create(Dog.self, value: ["id": 2]) }
        let count = try write { objects(Dog.self).count }
        try write {
            let puppy = try create(Dog.self, value: ["id": 3])
            puppy.name = "Rex"
        }
        return count
    }
}

func outside(_ realm: Realm) async throws -> Int {
    try await realm.write { realm in
        let dog = try realm.create(Dog.self, value: ["id": 4])
        dog.name = "Max"
    }
    return try await realm.write { realm in realm.objects(Dog.self).count }
}
