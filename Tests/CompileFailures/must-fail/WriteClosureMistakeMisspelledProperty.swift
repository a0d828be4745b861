// Must NOT compile, and the error must name the mistake inside the closure: a write from
// outside the actor whose body misspells a property. (The realm's two `write`s once made the
// compiler blame the closure's shape: "contextual closure type '() throws -> ()' expects 0
// arguments, but 1 was used in closure body".)
// expect-error: value of type 'Dog' has no member 'nme'
import Floe

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

func rename(_ realm: Realm) async throws {
    try await realm.write { realm in
        let dog = try realm.create(Dog.self, value: ["id": 1])
        dog.nme = "Rex"
    }
}
