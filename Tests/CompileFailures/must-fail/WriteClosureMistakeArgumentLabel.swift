// Must NOT compile, and the error must name the mistake inside the closure: a write from
// outside the actor whose body calls `create` with a wrong argument label.
// expect-error: incorrect argument label in call (have '_:values:', expected '_:value:')
import Floe

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var age = 0
}

func birthday(_ realm: Realm) async throws {
    try await realm.write { realm in
        let dog = try realm.create(Dog.self, values: ["id": 1])
        dog.age += 1
    }
}
