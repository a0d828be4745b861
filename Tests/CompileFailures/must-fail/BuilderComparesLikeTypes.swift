// Must NOT compile: a builder comparison takes a value of the property's own type.
// expect-error: cannot convert value of type 'String' to expected argument type 'Int'
import Floe

final class Dog: Object {
    @Persisted var age = 0
}

extension Realm {
    func dogsAgedThree() throws -> Results<Dog> {
        try objects(Dog.self).where { $0.age == "three" }
    }
}
