// Must NOT compile: a `Query` of a plain value has no members, even named on its own.
// expect-error: no exact matches in reference to subscript
import Floe
import Foundation

func epochSeconds(_ query: Query<Date>) -> Query<Double> {
    query.timeIntervalSince1970
}
