import Foundation
import Testing
import Floe

// The user's documents (Realm Swift SDK pages) as tests: each example as written there,
// with only the mechanical changes Floe asks for (`try`/`await`, writes through
// `realm.write { realm in … }`). Each example's classes sit in their own namespace so that
// they keep their names (which are their table names) without colliding.

enum Seed000_01 {
    // A dog has an _id primary key, a string name, an optional
    // string breed, and a date of birth.
    class Dog: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name = ""
        @Persisted var breed: String?
        @Persisted var dateOfBirth = Date()
    }
}

enum Seed000_02 {
    class Person: Object {
        // Required string property
        @Persisted var name = ""
        // Optional string property
        @Persisted var address: String?
        // Required numeric property
        @Persisted var ageYears = 0
        // Optional numeric property
        @Persisted var heightCm: Float?
    }
}

enum Seed000_04 {
    class Project: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
    }
}

enum Seed000_06 {
    class Book: Object {
        @Persisted var priceCents = 0
        @Persisted(indexed: true) var title = ""
    }
}

enum Seed000_08 {
    class Person: Object {
        // If some properties are marked as @Persisted,
        // any properties that do not have the @Persisted
        // annotation are automatically ignored.
        var tmpId = 0
        // The @Persisted properties are managed
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        // Read-only properties are automatically ignored
        var name: String {
            return "\(firstName) \(lastName)"
        }
        // (`@objc dynamic var email = ""` is ignored by Realm too; Linux has no `@objc`.)
    }
}

enum Seed000_10 {
    // Define the enum
    enum TaskStatusEnum: String, PersistableEnum {
        case notStarted
        case inProgress
        case complete
    }
    // To use the enum:
    class Task: Object {
        @Persisted var name: String = ""
        @Persisted var owner: String?
        // Required enum property
        @Persisted var status = TaskStatusEnum.notStarted
        // Optional enum property
        @Persisted var optionalTaskStatusEnumProperty: TaskStatusEnum?
    }
}

enum Seed000_12 {
    class Person: Object {
        @Persisted var firstName = ""
        @Persisted var lastName = ""
        override class public func propertiesMapping() -> [String: String] {
            ["firstName": "first_name",
             "lastName": "last_name"]
        }
    }
}

/// The scalar part of the models of the CRUD page (its lists, sets, maps, links and mixed
/// values come with relationships).
enum Seed003 {
    class DogToy: Object {
        @Persisted var name = ""
    }

    class Dog: Object {
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var color = ""
        @Persisted var currentCity = ""
    }

    class Todo: Object {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var name: String
        @Persisted var owner: String
        @Persisted var status: String
    }

    actor RealmActor {
        // An implicitly-unwrapped optional is used here to let us pass `self` to
        // `Realm(actor:)` within `init`
        var realm: Realm!
        init(configuration: Realm.Configuration) async throws {
            realm = try await Realm(configuration: configuration)
        }

        var count: Int {
            get async throws { try await realm.read { realm in realm.objects(Todo.self).count } }
        }

        func createTodo(name: String, owner: String, status: String) async throws {
            try await realm.asyncWrite { realm in
                try realm.create(Todo.self, value: [
                    "_id": ObjectId.generate(),
                    "name": name,
                    "owner": owner,
                    "status": status
                ])
            }
        }
    }
}

@Suite struct SeedExamplesTests {
    func realm(_ types: [ObjectBase.Type]) async throws -> Realm {
        try await inMemoryRealm("seed", objectTypes: types)
    }

    @Test func definingModels() async throws {
        // Three examples define a `Person`: one realm each (a realm refuses two classes of one name).
        await #expect(throws: FloeError.self) { _ = try await self.realm([Seed000_02.Person.self, Seed000_08.Person.self]) }
        let realm = try await realm([Seed000_01.Dog.self, Seed000_02.Person.self, Seed000_04.Project.self, Seed000_06.Book.self,
                                     Seed000_10.Task.self])
        let second = try await self.realm([Seed000_08.Person.self])
        let third = try await self.realm([Seed000_12.Person.self])
        try await second.write { realm in
            let ignored = Seed000_08.Person()
            ignored.tmpId = 42
            ignored.firstName = "Grace"
            ignored.lastName = "Hopper"
            try realm.add(ignored)
        }
        try await third.write { realm in
            try realm.add(Seed000_12.Person(value: ["firstName": "Ada", "lastName": "Lovelace"]))
        }
        try await realm.write { realm in
            let dog = Seed000_01.Dog()
            dog.name = "Rex"
            try realm.add(dog)
            let twin = Seed000_01.Dog()
            #expect(dog._id != twin._id, "each new object gets a fresh ObjectId")
            #expect(ObjectId() == (try ObjectId(string: "000000000000000000000000")))
            let person = Seed000_02.Person()
            person.name = "Ann"
            person.heightCm = 170.5
            try realm.add(person)
            try realm.add([Seed000_04.Project(value: ["id": 1, "name": "Floe"])])
            try realm.add(Seed000_06.Book(value: ["priceCents": 999, "title": "Swift"]))
            let task = Seed000_10.Task()
            task.name = "Write tests"
            task.optionalTaskStatusEnumProperty = .inProgress
            try realm.add(task)
        }
        let summary = try await realm.read { realm -> [String] in
            let dog = realm.objects(Seed000_01.Dog.self).first!
            let person = realm.objects(Seed000_02.Person.self).first!
            let project = realm.object(ofType: Seed000_04.Project.self, forPrimaryKey: 1)!
            let task = realm.objects(Seed000_10.Task.self).first!
            return [
                "\(dog.name) \(dog.breed ?? "nil") \(dog._id != ObjectId())",
                "\(person.name) \(person.address ?? "nil") \(person.ageYears) \(person.heightCm ?? 0)",
                project.name,
                realm.objects(Seed000_06.Book.self).first!.objectSchema["title"]!.isIndexed ? "indexed" : "not indexed",
                "\(task.status) \(task.optionalTaskStatusEnumProperty.map { "\($0)" } ?? "nil") \(task.owner ?? "nil")",
            ]
        }
        let ignored = try await second.read { realm in
            realm.objects(Seed000_08.Person.self).map { "\($0.name) \($0.tmpId) \($0.objectSchema.properties.map(\.name))" }
        }
        #expect(ignored == ["Grace Hopper 0 [\"firstName\", \"lastName\"]"])
        let mapped = try await third.read { realm in
            realm.objects(Seed000_12.Person.self).map { "\($0.firstName) \($0.objectSchema.properties.map(\.columnName).joined(separator: ","))" }
        }
        #expect(mapped == ["Ada first_name,last_name"])
        #expect(summary == [
            "Rex nil true",
            "Ann nil 0 170.5",
            "Floe",
            "indexed",
            "notStarted inProgress nil",
        ])
    }

    @Test func unmanagedCopyOfAManagedObject() async throws {
        let realm = try await realm([Seed000_04.Project.self])
        try await realm.asyncWrite { realm in try realm.create(Seed000_04.Project.self, value: ["id": 7, "name": "original"]) }
        let result = try await realm.read { realm -> String in
            let persistedModelObject = realm.object(ofType: Seed000_04.Project.self, forPrimaryKey: 7)!
            let standaloneModelObject = try Seed000_04.Project(value: persistedModelObject)
            standaloneModelObject.name = "copy"
            return "\(standaloneModelObject.isManaged) \(standaloneModelObject.id) \(standaloneModelObject.name) \(persistedModelObject.name)"
        }
        #expect(result == "false 7 copy original")
    }

    @Test func createAndAddInAWrite() async throws {
        let realm = try await realm([Seed003.Dog.self, Seed003.DogToy.self])
        // Instantiate the class and set its values (inside the write: an object handed to a
        // write belongs to the realm's actor afterwards).
        try await realm.write { realm in
            let dog = Seed003.Dog()
            dog.name = "Rex"
            dog.age = 10
            // Add the instance to the realm.
            try realm.add(dog)
        }
        try await realm.write { realm in
            // (1) Create a Dog object from a dictionary
            let myDog = try Seed003.Dog(value: ["name": "Pluto", "age": 3])
            // (2) Create a Dog object from an array
            let myOtherDog = try Seed003.Dog(value: ["Fido", 5])
            // Add to the realm inside a transaction
            try realm.add([myDog, myOtherDog])
        }
        // Specify a dog toy in JSON
        let data = "{\"name\": \"Tennis ball\"}".data(using: .utf8)!
        try await realm.write { realm in
            let json = try JSONSerialization.jsonObject(with: data, options: [])
            try realm.create(Seed003.DogToy.self, value: json)
        }
        let dogs = try await realm.read { realm in realm.objects(Seed003.Dog.self).map { "\($0.name) \($0.age)" } }
        #expect(dogs == ["Rex 10", "Pluto 3", "Fido 5"])
        #expect(try await realm.read { realm in realm.objects(Seed003.DogToy.self).map(\.name) } == ["Tennis ball"])
    }

    @Test func actorIsolatedWrites() async throws {
        func createObject(_ actor: Seed003.RealmActor) async throws -> Int {
            // Because this function is not isolated to this actor,
            // you must await operations completed on the actor
            try await actor.createTodo(name: "Take the ring to Mount Doom", owner: "Frodo", status: "In Progress")
            let taskCount = try await actor.count
            print("The actor currently has \(taskCount) tasks")
            return taskCount
        }
        let actor = try await Seed003.RealmActor(configuration: Realm.Configuration(inMemoryIdentifier: "seed-actor-\(UUID())"))
        #expect(try await createObject(actor) == 1)
    }
}
