// Must NOT compile: a builder comparison takes a value of the property's own type.
// expect-error: binary operator '==' cannot be applied to operands of type 'Query<Int>' and 'String'
import Floe

final class Dog: Object {
    @Persisted var age = 0
}

extension Realm {
    func dogsAgedThree() throws -> Results<Dog> {
        try objects(Dog.self).where { $0.age == "three" }
    }
}
