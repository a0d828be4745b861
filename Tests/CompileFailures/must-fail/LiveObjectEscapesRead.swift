// Must NOT compile: a live object cannot leave its realm's actor.
// expect-error: does not conform to the 'Sendable' protocol
import Floe

final class LeakyDog: Object {
    @Persisted var name = ""
}

func leakFromRead(_ realm: Realm) async throws -> LeakyDog? {
    try await realm.read { realm in realm.objects(LeakyDog.self).first }
}
