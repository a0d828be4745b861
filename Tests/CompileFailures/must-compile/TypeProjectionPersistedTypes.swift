// Must compile outside the module: type projections persisted as every kind of single value
// (the seed's URL and coordinate, an enum, another projection, a mixed value).
import Floe
import Foundation

struct Coordinate { var latitude = 0.0, longitude = 0.0 }

final class Location: EmbeddedObject {
    @Persisted var latitude = 0.0
    @Persisted var longitude = 0.0
}

extension Coordinate: CustomPersistable {
    typealias PersistedType = Location
    init(persistedValue: Location) { self.init(latitude: persistedValue.latitude, longitude: persistedValue.longitude) }
    var persistableValue: Location { try! Location(value: [latitude, longitude]) }
}

extension URL: FailableCustomPersistable {
    public typealias PersistedType = String
    public init?(persistedValue: String) { self.init(string: persistedValue) }
    public var persistableValue: String { absoluteString }
}

enum Size: Int, PersistableEnum { case small, large }

struct Box: CustomPersistable {
    typealias PersistedType = Size
    var size: Size
    init(persistedValue: Size) { size = persistedValue }
    var persistableValue: Size { size }
}

struct Link: FailableCustomPersistable {
    typealias PersistedType = URL
    var url: URL
    init?(persistedValue: URL) { url = persistedValue }
    var persistableValue: URL { url }
}

struct Tagged: CustomPersistable {
    typealias PersistedType = AnyRealmValue
    var value: AnyRealmValue
    init(persistedValue: AnyRealmValue) { value = persistedValue }
    var persistableValue: AnyRealmValue { value }
}

struct Amount: CustomPersistable {
    typealias PersistedType = Decimal128
    var value: Decimal128
    init(persistedValue: Decimal128) { value = persistedValue }
    var persistableValue: Decimal128 { value }
}

final class Club: Object {
    @Persisted var location: Coordinate
    @Persisted var url: URL?
    @Persisted var urls: List<URL>
    @Persisted var box: Box
    @Persisted var link: Link?
    @Persisted var tag: Tagged
    @Persisted var fees: Map<String, Amount?>
    @Persisted var places: MutableSet<Int8>
}
