// Must NOT compile: the builder orders numbers, dates and strings, not Bools.
// expect-error: binary operator '<' cannot be applied to operands of type 'Query<Bool>' and 'Bool'
import Floe

final class Dog: Object {
    @Persisted var good = false
}

extension Realm {
    func oddDogs() throws -> Results<Dog> {
        try objects(Dog.self).where { $0.good < true }
    }
}
