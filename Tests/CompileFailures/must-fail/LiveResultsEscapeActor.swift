// Must NOT compile: live results cannot be taken out of the realm's actor.
// expect-error: non-Sendable 'Results<LeakyCat>'-typed result can not be returned
import Floe

final class LeakyCat: Object {
    @Persisted var name = ""
}

func leakResults(_ realm: Realm) async -> Int {
    let cats = await realm.objects(LeakyCat.self)
    return cats.count
}
