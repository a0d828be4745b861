// Must NOT compile: a frozen object cannot be modified.
// expect-error: is immutable
import Floe

final class FrozenBird: Object {
    @Persisted var name = ""
}

func mutateFrozen(_ frozen: Frozen<FrozenBird>) {
    var bird = frozen
    bird.name = "changed"
}
