// Must NOT compile: a delete rule belongs to a relationship (a link, list, set or map of
// objects); on any other property it would mean nothing.
// expect-error: no exact matches in call to initializer
import Floe

final class Tag: Object {
    @Persisted(deleteRule: .cascade) var name: String
}
