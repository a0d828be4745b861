// Must NOT compile: `min(ofProperty:)` throws (a pinned signature), so a call needs `try`.
// expect-error: call can throw, but it is not marked with 'try'
import Floe

final class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
    var firstLetter: String { String(name.prefix(1)) }
}

extension Realm {
    func unmarked(_ dogs: Results<Dog>) {
        let least: Int? = dogs.min(ofProperty: "age"); _ = least
    }
}
