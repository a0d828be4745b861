import Foundation
import Testing
import Floe

// The seeds' examples that use relationships and collections, as written there with only
// Floe's mechanical changes (`try`/`await`, writes through `realm.write { realm in … }`,
// objects made inside the write that adds them).

/// The models of the CRUD page, complete.
enum Seed003Full {
    class DogToy: Object {
        @Persisted var name = ""
    }

    class Dog: Object {
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var color = ""
        @Persisted var currentCity = ""
        @Persisted var citiesVisited: MutableSet<String>
        @Persisted var companion: AnyRealmValue

        // To-one relationship
        @Persisted var favoriteToy: DogToy?

        // Map of city name -> favorite park in that city
        @Persisted var favoriteParksByCity: Map<String, String>
    }

    class Person: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""

        // To-many relationship - a person can have many dogs
        @Persisted var dogs: List<Dog>

        // Embed a single object.
        // Embedded object properties must be marked optional.
        @Persisted var address: Address?

        convenience init(name: String, address: Address) {
            self.init()
            self.name = name
            self.address = address
        }
    }

    class Address: EmbeddedObject {
        @Persisted var street: String?
        @Persisted var city: String?
        @Persisted var country: String?
        @Persisted var postalCode: String?
    }

    static let types: [ObjectBase.Type] = [DogToy.self, Dog.self, Person.self, Address.self]
}

/// Every supported property type, from the supported-types page.
enum Seed002 {
    enum MyPersistableEnum: Int, PersistableEnum { case first, second }
    class MyCustomObjectType: Object { @Persisted var name = "" }
    class MyEmbeddedObjectType: EmbeddedObject { @Persisted var name = "" }

    class AllTheTypes: Object {
        @Persisted var boolName: Bool
        @Persisted var optBoolName: Bool?
        @Persisted var intName: Int
        @Persisted var optIntName: Int?
        @Persisted var floatName: Float
        @Persisted var optFloatName: Float?
        @Persisted var doubleName: Double
        @Persisted var optDoubleName: Double?
        @Persisted var stringName: String
        @Persisted var optStringName: String?
        @Persisted var dataName: Data
        @Persisted var optDataName: Data?
        @Persisted var dateName: Date
        @Persisted var optDateName: Date?
        @Persisted var decimalName: Decimal128
        @Persisted var optDecimalName: Decimal128?
        @Persisted var uuidName: UUID
        @Persisted var optUuidName: UUID?
        @Persisted var objectIdName: ObjectId
        @Persisted var optObjectIdName: ObjectId?
        @Persisted var listName: List<MyCustomObjectType>
        @Persisted var mutableSetName: MutableSet<String>
        @Persisted var mapName: Map<String, String>
        @Persisted var anyRealmValueName: AnyRealmValue
        @Persisted var optObjectPropertyName: MyCustomObjectType?
        @Persisted var optEmbeddedObjectPropertyName: MyEmbeddedObjectType?
        @Persisted var enumName: MyPersistableEnum
        @Persisted var optEnumName: MyPersistableEnum?
    }

    class MyModel: Object { @Persisted var name = "" }

    class ViewController {
        let collection: AnyRealmCollection<MyModel>
        init<C: RealmCollection & _ObjcBridgeable>(collection: C) where C.ElementType == MyModel {
            self.collection = AnyRealmCollection(collection)
        }
    }

    class Holder: Object {
        @Persisted var models: List<MyModel>
    }
}

@Suite struct SeedRelationshipExamplesTests {
    func realm(_ types: [ObjectBase.Type]) async throws -> Realm {
        try await inMemoryRealm("seed-rel", objectTypes: types)
    }

    @Test func everySupportedPropertyType() async throws {
        let realm = try await realm([Seed002.AllTheTypes.self, Seed002.MyCustomObjectType.self, Seed002.MyEmbeddedObjectType.self])
        try await realm.write { realm in
            let object = Seed002.AllTheTypes()
            object.listName.append(try Seed002.MyCustomObjectType(value: ["name": "in a list"]))
            object.mutableSetName.insert("in a set")
            object.mapName["key"] = "in a map"
            object.anyRealmValueName = .int(7)
            object.optEmbeddedObjectPropertyName = try Seed002.MyEmbeddedObjectType(value: ["name": "embedded"])
            object.enumName = .second
            try realm.add(object)
        }
        let read = try await realm.read { realm in
            realm.objects(Seed002.AllTheTypes.self).map {
                "\($0.listName.first?.name ?? "-") \($0.mutableSetName.first ?? "-") \($0.mapName["key"] ?? "-") \($0.anyRealmValueName.intValue ?? 0) \($0.optEmbeddedObjectPropertyName?.name ?? "-") \($0.enumName) \($0.optObjectPropertyName == nil)"
            }
        }
        #expect(read == ["in a list in a set in a map 7 embedded second true"])
    }

    @Test func genericCollections() async throws {
        func operateOn<C: RealmCollection>(collection: C) -> Int {
            // Collection could be either Results or List
            print("operating on collection containing \(collection.count) objects")
            return collection.count
        }
        let realm = try await realm([Seed002.MyModel.self, Seed002.Holder.self])
        try await realm.write { realm in
            try realm.create(Seed002.Holder.self, value: ["models": [["name": "a"], ["name": "b"]]])
            try realm.create(Seed002.MyModel.self, value: ["name": "c"])
        }
        let counts = try await realm.read { realm in
            let results = realm.objects(Seed002.MyModel.self)
            let list = realm.objects(Seed002.Holder.self).first!.models
            let fromResults = Seed002.ViewController(collection: results)
            let fromList = Seed002.ViewController(collection: list)
            return [operateOn(collection: results), operateOn(collection: list), fromResults.collection.count,
                    fromList.collection.count, fromList.collection.map(\.name) == ["a", "b"] ? 1 : 0]
        }
        #expect(counts == [3, 2, 3, 2, 1])
    }

    @Test func crudPageWithTheFullModels() async throws {
        let realm = try await realm(Seed003Full.types)
        // Create an object and add it
        try await realm.write { realm in
            // Instantiate the class and set its values.
            let dog = Seed003Full.Dog()
            dog.name = "Rex"
            dog.age = 10
            // Add the instance to the realm.
            try realm.add(dog)
        }
        // Initialize objects with a value
        try await realm.write { realm in
            // (1) Create a Dog object from a dictionary
            let myDog = try Seed003Full.Dog(value: ["name": "Pluto", "age": 3])
            // (2) Create a Dog object from an array
            let myOtherDog = try Seed003Full.Dog(value: ["Fido", 5])
            try realm.add([myDog, myOtherDog])
        }
        // Nested initializer values
        try await realm.write { realm in
            let aDog = try Seed003Full.Dog(value: ["name": "Lulu", "age": 3])
            let anotherDog = try Seed003Full.Dog(value: ["name": "Max", "age": 4])
            // Instead of using pre-existing dogs...
            let aPerson = try Seed003Full.Person(value: [123, "Jane", [aDog, anotherDog]])
            // ...we can create them inline
            let anotherPerson = try Seed003Full.Person(value: [124, "Jane", [["Buster", 5], ["Buddy", 6]]])
            try realm.add([aPerson, anotherPerson])
        }
        // From JSON
        let data = "{\"name\": \"Tennis ball\"}".data(using: .utf8)!
        try await realm.write { realm in
            let json = try JSONSerialization.jsonObject(with: data, options: [])
            try realm.create(Seed003Full.DogToy.self, value: json)
        }
        // An embedded object through a convenience initializer
        try await realm.write { realm in
            let address = Seed003Full.Address()
            address.street = "123 Fake St"
            address.city = "Springfield"
            address.country = "USA"
            address.postalCode = "90710"
            let contact = Seed003Full.Person(name: "Nick Riviera", address: address)
            try realm.add(contact)
        }
        // A map
        try await realm.write { realm in
            // Record a dog's name and current city
            let dog = Seed003Full.Dog()
            dog.name = "Wolfie"
            dog.currentCity = "New York"
            // Set map values
            dog.favoriteParksByCity["New York"] = "Domino Park"
            // Store the data in a realm
            try realm.add(dog)
            // You can also set map values inside a write transaction
            dog.favoriteParksByCity["Chicago"] = "Wiggly Field"
            dog.favoriteParksByCity.setValue("Bush Park", forKey: "Ottawa")
            // Percent encode . or $ characters to use them in map keys
            let encodedMapKey = "New York%2EBrooklyn"
            dog.favoriteParksByCity[encodedMapKey] = "Prospect Park"
        }
        // A set
        try await realm.write { realm in
            let dog = Seed003Full.Dog()
            dog.name = "Maui"
            dog.currentCity = "New York"
            try realm.add(dog)
            // You can only mutate the MutableSet in a write transaction.
            dog.citiesVisited.insert(dog.currentCity)
        }
        try await realm.write { realm in
            let dog = realm.objects(Seed003Full.Dog.self).first { $0.name == "Maui" }!
            dog.citiesVisited.insert(objectsIn: ["Boston", "Chicago"])
            print("\(dog.name) has visited: \(dog.citiesVisited)")
        }
        let summary = try await realm.read { realm -> [String] in
            let dogs = realm.objects(Seed003Full.Dog.self)
            let people = realm.objects(Seed003Full.Person.self)
            return [
                dogs.map(\.name).joined(separator: ","),
                people.map { "\($0.id):\($0.dogs.map(\.name).joined(separator: "+"))" }.joined(separator: ","),
                people.first { $0.name == "Nick Riviera" }?.address?.city ?? "-",
                dogs.first { $0.name == "Wolfie" }!.favoriteParksByCity.map { "\($0.key)=\($0.value)" }.joined(separator: ","),
                Array(dogs.first { $0.name == "Maui" }!.citiesVisited).joined(separator: ","),
                realm.objects(Seed003Full.DogToy.self).first?.name ?? "-",
            ]
        }
        #expect(summary == [
            "Rex,Pluto,Fido,Lulu,Max,Buster,Buddy,Wolfie,Maui",
            "0:,123:Lulu+Max,124:Buster+Buddy",  // unsorted results come in key order: an integer primary key is the key
            "Springfield",
            "Chicago=Wiggly Field,New York=Domino Park,New York%2EBrooklyn=Prospect Park,Ottawa=Bush Park",
            "Boston,Chicago,New York",
            "Tennis ball",
        ])
    }

    @Test func companionsOfEveryKind() async throws {
        let realm = try await realm(Seed003Full.types)
        try await realm.write { realm in
            // Create a Dog object and then set its properties
            let myDog = Seed003Full.Dog()
            myDog.name = "Rex"
            // This dog has no companion.
            // You can set the field's type to "none", which represents `nil`
            myDog.companion = .none

            // Create another Dog whose companion is a cat.
            let theirDog = Seed003Full.Dog()
            theirDog.name = "Wolfie"
            theirDog.companion = .string("Fluffy the Cat")

            // Another dog might have a dog as a companion.
            let anotherDog = Seed003Full.Dog()
            anotherDog.name = "Fido"
            anotherDog.companion = .object(try Seed003Full.Dog(value: ["name": "Spot"]))

            // Add the dogs to the realm
            try realm.add([myDog, theirDog, anotherDog])
        }
        // After adding these dogs to the realm, we now have 4 dog objects.
        let count = try await realm.read { realm in realm.objects(Seed003Full.Dog.self).count }
        #expect(count == 4)
    }
}

enum Seed002Geo {
    class CustomGeoPoint: EmbeddedObject {
        @Persisted private var type: String = "Point"
        @Persisted private var coordinates: List<Double>
        public var latitude: Double { return coordinates[1] }
        public var longitude: Double { return coordinates[0] }
        convenience init(_ latitude: Double, _ longitude: Double) {
            self.init()
            // Longitude comes first in the coordinates array of a GeoJson document
            coordinates.append(objectsIn: [longitude, latitude])
        }
    }

    class Company: Object {
        @Persisted var name = ""
        @Persisted var location: CustomGeoPoint?
    }
}

extension SeedRelationshipExamplesTests {
    @Test func geoJSONPointsPersistAcrossReopen() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url(),
                                                objectTypes: [Seed002Geo.Company.self, Seed002Geo.CustomGeoPoint.self, Seed003Full.Dog.self, Seed003Full.DogToy.self])
        do {
            let realm = try await Realm(configuration: configuration)
            try await realm.write { realm in
                let company = Seed002Geo.Company()
                company.name = "Floe"
                company.location = Seed002Geo.CustomGeoPoint(48.8566, 2.3522)
                try realm.add(company)
                let dog = Seed003Full.Dog()
                dog.name = "Traveller"
                dog.citiesVisited.insert(objectsIn: ["Paris", "Oslo"])
                dog.favoriteParksByCity["Paris"] = "Luxembourg"
                dog.favoriteToy = try Seed003Full.DogToy(value: ["name": "ball"])
                dog.companion = .double(2.5)
                try realm.add(dog)
            }
        }
        let reopened = try await Realm(configuration: configuration)
        let read = try await reopened.read { realm in
            let location = realm.objects(Seed002Geo.Company.self).first!.location!
            let dog = realm.objects(Seed003Full.Dog.self).first!
            return ["\(location.latitude),\(location.longitude)", Array(dog.citiesVisited).joined(separator: ","),
                    dog.favoriteParksByCity["Paris"] ?? "-", dog.favoriteToy?.name ?? "-", "\(dog.companion.doubleValue ?? 0)"]
        }
        #expect(read == ["48.8566,2.3522", "Oslo,Paris", "Luxembourg", "ball", "2.5"])
    }
}
