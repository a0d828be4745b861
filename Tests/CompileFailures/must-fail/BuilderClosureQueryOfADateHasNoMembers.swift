// Must NOT compile: a `Query` of a Date has no members inside a builder closure either, even
// with the Date side named on its own line.
// expect-error: no exact matches in reference to subscript
import Floe
import Foundation

final class Person: Object {
    @Persisted var birthday = Date()
}

let bornLate: (Query<Person>) -> Query<Bool> = { person in
    let birthday: Query<Date> = person.birthday
    return birthday.timeIntervalSince1970 > 5
}
