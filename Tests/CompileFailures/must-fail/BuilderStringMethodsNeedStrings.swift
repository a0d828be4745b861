// Must NOT compile: the builder's string methods apply to string properties only (the string
// form's `age BEGINSWITH '1'` is a typed error at run time instead).
// expect-error: requires that 'Int' conform to '_QueryString'
import Floe

final class Dog: Object {
    @Persisted var name = ""
    @Persisted var age = 0
}

extension Realm {
    func dogsAgedOneSomething() throws -> Results<Dog> {
        try objects(Dog.self).where { $0.age.starts(with: "1") }
    }
}
