// Must NOT compile: seed 003, `PersistedType = String?` "is not a valid conformance"; a type
// projection is persisted as one value, never an optional.
// expect-error: does not conform to '_PersistableSingleValue'
import Floe

struct Nickname: CustomPersistable {
    typealias PersistedType = String?
    var text: String?
    init(persistedValue: String?) { text = persistedValue }
    var persistableValue: String? { text }
}
