// Must compile: every relationship shape takes a delete rule.
import Floe

final class Part: Object {
    @Persisted(primaryKey: true) var id = 0
}

final class Assembly: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted(deleteRule: .cascade) var main: Part?
    @Persisted(deleteRule: .cascade) var spare: Part? = nil
    @Persisted(deleteRule: .cascade) var parts: List<Part>
    @Persisted(deleteRule: .cascade) var kit: MutableSet<Part>
    @Persisted(deleteRule: .cascade) var labelled: Map<String, Part?>
    @Persisted(deleteRule: .nullify) var related: Part?
}
