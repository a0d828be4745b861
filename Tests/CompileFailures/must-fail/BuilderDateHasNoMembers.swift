// Must NOT compile: a Date property is compared as a whole; the builder reaches no member of it
// (as in Realm), so `timeIntervalSince1970` is not a property to query.
// expect-error: no exact matches in reference to subscript
import Floe
import Foundation

final class Person: Object {
    @Persisted var birthday = Date()
}

extension Realm {
    func bornAfterTheEpoch() throws -> Results<Person> {
        try objects(Person.self).where { $0.birthday.timeIntervalSince1970 > 5 }
    }
}
