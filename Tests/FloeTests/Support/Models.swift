import Foundation
import Floe

enum DogColor: String, PersistableEnum {
    case brown, black, white
}

final class TestDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = DogColor.brown
    @Persisted var breed: String?
    @Persisted var weight: Double = 0
    var isSelected = false
    var description2: String { "\(name) (\(age))" }
}

final class AllTypes: Object {
    @Persisted var bool = false
    @Persisted var int = 0
    @Persisted var int8: Int8 = 0
    @Persisted var int16: Int16 = 0
    @Persisted var int32: Int32 = 0
    @Persisted var int64: Int64 = 0
    @Persisted var float: Float = 0
    @Persisted var double = 0.0
    @Persisted var string = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSince1970: 0)
    @Persisted var decimal: Decimal128 = 0
    @Persisted var objectId: ObjectId
    @Persisted var uuid: UUID
    @Persisted var optionalBool: Bool?
    @Persisted var optionalInt: Int?
    @Persisted var optionalInt8: Int8?
    @Persisted var optionalInt16: Int16?
    @Persisted var optionalInt32: Int32?
    @Persisted var optionalInt64: Int64?
    @Persisted var optionalFloat: Float?
    @Persisted var optionalDouble: Double?
    @Persisted var optionalString: String?
    @Persisted var optionalData: Data?
    @Persisted var optionalDate: Date?
    @Persisted var optionalDecimal: Decimal128?
    @Persisted var optionalObjectId: ObjectId?
    @Persisted var optionalUUID: UUID?
    @Persisted var color = DogColor.black
    @Persisted var optionalColor: DogColor?
}

final class Person: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    @Persisted var age: Int?
}

final class MappedPerson: Object {
    @Persisted var firstName = ""
    @Persisted var lastName = ""
    override class public func propertiesMapping() -> [String: String] {
        ["firstName": "first_name", "lastName": "last_name"]
    }
}

class Animal: Object {
    @Persisted var name = ""
    func speak() -> String { "..." }
}

final class Cat: Animal {
    @Persisted var lives = 9
    override func speak() -> String { "meow" }
}

final class StringKeyed: Object {
    @Persisted(primaryKey: true) var key = ""
    @Persisted var value = 0
}

final class ObjectIdKeyed: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var uuid: UUID
    @Persisted var name = ""
}

final class TwoPrimaryKeys: Object {
    @Persisted(primaryKey: true) var a = 0
    @Persisted(primaryKey: true) var b = 0
}

final class DoublePrimaryKey: Object {
    @Persisted(primaryKey: true) var a = 0.0
}

final class IndexedDouble: Object {
    @Persisted(indexed: true) var a = 0.0
}

final class EmbeddedWithKey: EmbeddedObject {
    @Persisted(primaryKey: true) var a = 0
}

final class ThisClassNameIsFarTooLongToBeATableNameBecauseItHasMoreThanFiftySevenBytes: Object {
    @Persisted var a = 0
}

final class LongPropertyName: Object {
    @Persisted var thisPropertyNameIsFarTooLongToBeAColumnNameBecauseItIsOverSixtyThreeBytes = 0
}

/// A linked list of objects: chains longer than any recursion could follow.
final class ChainLink: Object {
    @Persisted var index = 0
    @Persisted var next: ChainLink?
}

/// The owner of embedded objects nested in one another.
final class NestingOwner: Object {
    @Persisted var name = ""
    @Persisted var nested: NestedEmbedded?
    @Persisted var nestedList: List<NestedEmbedded>
}

final class NestedEmbedded: EmbeddedObject {
    @Persisted var depth = 0
    @Persisted var child: NestedEmbedded?
}

/// Every kind of place a string, a binary value, a date or a map key can be stored.
final class ValueHolder: Object {
    @Persisted var name = ""
    @Persisted var data = Data()
    @Persisted var date = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var optionalDate: Date?
    @Persisted(indexed: true) var indexedDate = Date(timeIntervalSinceReferenceDate: 0)
    @Persisted var dates: List<Date>
    @Persisted var strings: List<String>
    @Persisted var stringSet: MutableSet<String>
    @Persisted var dataList: List<Data>
    @Persisted var map: Map<String, String>
    @Persisted var mixed: AnyRealmValue
    @Persisted var mixedList: List<AnyRealmValue>
    @Persisted var mixedMap: Map<String, AnyRealmValue>
    @Persisted var link: ValueHolder?
}

/// An embedded address, a city and a country (the projections' person lives at one).
final class Address: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var country = ""
}

/// An object with a key and a name, the target of a link.
final class Keeper: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
}

/// An object with a key and a text, written by tests that reopen, fault or compact files.
final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
}
