// Must NOT compile, and the error must name the mistake inside the closure: a write that
// returns a misspelled property, and a quiet write (withoutNotifying) with the same mistake.
// expect-error: value of type 'Dog' has no member 'nam'
import Floe

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

func created(_ realm: Realm) async throws -> String {
    try await realm.write(withoutNotifying: []) { realm in
        let dog = try realm.create(Dog.self, value: ["id": 1])
        return dog.nam
    }
}
