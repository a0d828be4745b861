// Must compile: the README's first look, as written there.
import Floe
import Foundation

final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var toys: List<String>
}

let realm = try await Realm(configuration: Realm.Configuration(fileURL: URL(fileURLWithPath: "first-look.floe")))
try await realm.write { realm in
    let dog = Dog()
    dog.id = 1
    dog.name = "Rex"
    dog.toys.append("ball")
    try realm.add(dog, update: .modified)   // a second run updates dog 1 instead of failing
}
let names = try await realm.read { realm in realm.objects(Dog.self).map(\.name) }
print(names)                                       // ["Rex"]
let frozen = try await realm.read { realm in try realm.objects(Dog.self).freeze() }
await Task.detached { print(frozen.map(\.name)) }.value   // Sendable: read from any task

extension Realm {
    func birthday(of id: Int) throws {
        try write {
            guard let dog = object(ofType: Dog.self, forPrimaryKey: id) else { return }
            dog.age += 1
        }
    }
}
try await realm.birthday(of: 1)
print(names)
