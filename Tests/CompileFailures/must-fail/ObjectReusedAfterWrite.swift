// Must NOT compile: an object handed to a write's closure belongs to the realm's actor afterwards.
// expect-error: risks causing data races
import Floe

final class SentDog: Object {
    @Persisted var name = ""
}

func reuseAfterWrite(_ realm: Realm) async throws {
    let dog = SentDog()
    try await realm.write { realm in try realm.add(dog) }
    print(dog.name)
}
