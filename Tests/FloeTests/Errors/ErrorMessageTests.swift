import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Every `FloeError` case (and every other wording of a message) with the message it shows,
/// word for word: users match on these messages and on `localizedDescription`, so reshaping
/// the type must not change them.
@Suite struct ErrorMessageTests {
    static let everyCase: [(error: FloeError, message: String)] = [
        (.notAFloeFile(path: "dogs.floe"),
         "The file dogs.floe is not a Floe file (its header has no Floe magic)."),
        (.unsupportedFormatVersion(path: "dogs.floe", found: 9, supported: 1),
         "The file dogs.floe has format version 9; this build of Floe reads format version 1 only."),
        (.corruptFile(path: "dogs.floe", offset: 4096, detail: "commit record checksum mismatch"),
         "The file dogs.floe is corrupt at byte offset 4096: commit record checksum mismatch."),
        (.fileLocked(path: "dogs.floe"),
         "The file dogs.floe is locked by another process."),
        (.io(path: "dogs.floe", operation: "open", errno: 2),
         "open failed on dogs.floe: No such file or directory (errno 2)."),
        (.closed(path: "dogs.floe"),
         "The store for dogs.floe is closed."),
        (.notInWriteTransaction(path: "dogs.floe"),
         "Cannot modify dogs.floe outside a write transaction."),
        (.readOnly(path: "dogs.floe"),
         "The file dogs.floe was opened read-only and cannot be written."),
        (.tooManyActiveVersions(path: "dogs.floe", active: 8, maximum: 8),
         "Cannot begin a new version of dogs.floe: 8 versions are active and maximumNumberOfActiveVersions is 8. Release frozen snapshots that are no longer needed."),
        (.noSuchTable(name: "Cat"),
         "There is no class named 'Cat' in this realm."),
        (.duplicateTable(name: "Dog"),
         "A class named 'Dog' is already in this realm."),
        (.noSuchColumn(table: "Dog", column: "wings"),
         "'Dog' has no property 'wings'."),
        (.duplicateColumn(table: "Dog", column: "name"),
         "'Dog' already has a property 'name'."),
        (.noSuchObject(table: "Dog", key: 7),
         "There is no Dog object with key 7 (it was deleted, or never committed)."),
        (.duplicatePrimaryKey(table: "Dog", column: "id", value: "1"),
         "Attempting to create an object of type 'Dog' with an existing primary key value 1 for 'id'."),
        (.duplicateObjectKey(table: "Dog", key: 7),
         "A Dog object with key 7 exists already."),
        (.typeMismatch(table: "Dog", column: "name", expected: "String", value: "42"),
         "Invalid value 42 for 'Dog.name': expected String."),
        (.nullForRequired(table: "Dog", column: "name"),
         "Invalid null value for 'Dog.name': the property is required (not optional)."),
        (.valueTooLarge(table: "Dog", column: "photo", size: 20_000_000, limit: 16_777_216),
         "Value of 20000000 bytes for 'Dog.photo' exceeds the limit of 16777216 bytes."),
        (.indexOutOfRange(table: "Person", column: "dogs", index: 3, count: 2),
         "Index 3 is out of range for 'Person.dogs' holding 2 elements."),
        (.invalidName(kind: "class", name: "", reason: "names may not be empty"),
         "Invalid class name '': names may not be empty."),
        (.invalidLink(table: "Person", column: "dog", target: "Dog", key: 9),
         "Invalid link in 'Person.dog': there is no Dog object with key 9."),
        (.alreadyInWriteTransaction(path: "dogs.floe"),
         "The realm at dogs.floe is already in a write transaction."),
        (.primaryKeyChanged(className: "Dog", property: "id", from: "1", to: "2"),
         "Primary key 'Dog.id' cannot be changed after an object is managed (from 1 to 2)."),
        (.schemaMismatch(path: "dogs.floe", differences: ["Property 'Dog.age' has been added."]),
         "Migration is required for dogs.floe because the schema has changed:\n- Property 'Dog.age' has been added."),
        (.schemaVersionTooLow(path: "dogs.floe", stored: 3, requested: 2),
         "Provided schema version 2 is less than last set version 3 for dogs.floe."),
        (.migrationNeedsObjectTypes(path: "dogs.floe", stored: 1, requested: 2, classNames: ["Dog"]),
         "Cannot migrate dogs.floe from schema version 1 to 2 without Configuration.objectTypes: a migration needs the model classes when the realm opens, and without objectTypes they are known only once used. Set objectTypes to every model class the realm holds (the file holds Dog: objectTypes = [Dog.self]) and open it again with the same schemaVersion and migrationBlock; the file was left unchanged."),
        (.objectNotInRealm(className: "Dog", detail: "is managed by another realm; use create(_:value:) to copy it"),
         "The Dog object is managed by another realm; use create(_:value:) to copy it."),
        (.invalidOperation(className: "Dog", detail: "has no primary key"),
         "Dog: has no primary key."),
        (.invalidSchema(className: "Dog", property: "owner", reason: "links must be optional"),
         "Invalid model class 'Dog', property 'owner': links must be optional."),
        (.invalidMapKey(table: "Dog", column: "tags", key: "a.b"),
         "Invalid map key 'a.b' for 'Dog.tags': keys may not contain '.'."),
        (.invalidValueString(type: "ObjectId", string: "xyz", reason: "an ObjectId is 24 hexadecimal digits"),
         "Invalid ObjectId string 'xyz': an ObjectId is 24 hexadecimal digits."),
        (.primaryKeyNotGiven(className: "Dog", property: "id", defaultValue: "0"),
         "No value for the primary key 'Dog.id' was given to create(_:value:), so its default 0 was used, and a Dog object with primary key 0 exists already. Give 'id' a value."),
        (.cyclicValue(className: "Person"),
         "Cannot create a Person from a cyclic value: it links back to an object being copied (or nests objects more than 100 levels deep). Add the objects with add(_:) instead, which keeps cycles."),
        (.invalidPredicate(predicate: "age >", position: 5, token: "", reason: "a value is expected"),
         "Invalid predicate 'age >' at position 5 (''): a value is expected."),
        (.invalidKeyPath(className: "Dog", keyPath: "wings", reason: "'Dog' has no property 'wings'"),
         "Invalid key path 'wings' on Dog: 'Dog' has no property 'wings'."),
        (.versionUnavailable(path: "dogs.floe", version: 2, oldest: 5, newest: 9),
         "Version 2 of 'dogs.floe' is no longer held (compacted away): the file holds versions 5 to 9."),
        (.invalidShape(shape: "GeoPolygon", className: "Place", property: "area", reason: "its ring is not closed"),
         "Invalid GeoPolygon in a geoWithin query on 'Place.area': its ring is not closed."),
        // The cases whose message has more than one wording.
        (.versionUnavailable(path: "dogs.floe", version: 12, oldest: 5, newest: 9),
         "Version 12 of 'dogs.floe' has not been committed yet: the newest is 9."),
        (.invalidShape(shape: "GeoPolygon", className: nil, property: nil, reason: "its ring is not closed"),
         "Invalid GeoPolygon: its ring is not closed."),
        (.migrationNeedsObjectTypes(path: "dogs.floe", stored: 1, requested: 2, classNames: []),
         "Cannot migrate dogs.floe from schema version 1 to 2 without Configuration.objectTypes: a migration needs the model classes when the realm opens, and without objectTypes they are known only once used. Set objectTypes to every model class the realm holds and open it again with the same schemaVersion and migrationBlock; the file was left unchanged."),
        (.invalidMapKey(table: "Dog", column: "tags", key: "$a"),
         "Invalid map key '$a' for 'Dog.tags': keys may not start with '$'."),
    ]

    @Test func everyCaseKeepsItsMessage() {
        for (error, message) in Self.everyCase {
            #expect(error.description == message)
            #expect((error as Error).localizedDescription == message)
            #expect("\(error)" == message)
        }
    }
}
