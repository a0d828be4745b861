// Must NOT compile: a (failable) type projection is persisted as one value, never a collection.
// expect-error: does not conform to '_PersistableSingleValue'
import Floe

struct Tags: FailableCustomPersistable {
    typealias PersistedType = List<String>
    init?(persistedValue: List<String>) {}
    var persistableValue: List<String> { List() }
}
