import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Model shapes Realm refuses, refused when the realm opens with a typed error naming the class,
/// the property and the type at fault: any link to an asymmetric object. (A type projection
/// persisted as an optional or a collection does not compile: see Tests/CompileFailures.) Also
/// the last line of defence for the builder: a key path on a value that is no model class is a typed error, never a crash.
@Suite struct ModelRefusalTests {
    final class WeatherSensor: AsymmetricObject {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var deviceId = ""
    }

    final class Station: Object {
        @Persisted var sensor: WeatherSensor?
    }

    final class ListHolder: Object {
        @Persisted var sensors: List<WeatherSensor>
    }

    final class SetHolder: Object {
        @Persisted var sensors: MutableSet<WeatherSensor>
    }

    final class MapHolder: Object {
        @Persisted var sensors: Map<String, WeatherSensor?>
    }

    final class EmbeddedHolder: EmbeddedObject {
        @Persisted var sensors: List<WeatherSensor>
    }

    final class EmbeddedOwner: Object {
        @Persisted var holder: EmbeddedHolder?
    }

    /// An asymmetric object linking to another asymmetric class is refused as well.
    final class Relay: AsymmetricObject {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var upstream: List<WeatherSensor>
    }

    final class Person: Object {
        @Persisted var name = ""
        @Persisted var birthday = Date()
    }

    /// Opening a realm with `types` fails with `.invalidSchema` for `className.property`; the
    /// reason is returned.
    func refusal(_ types: [ObjectBase.Type], className: String, property: String) async -> String? {
        let error = await #expect(throws: FloeError.self) {
            _ = try await inMemoryRealm("refusal", objectTypes: types)
        }
        guard case .invalidSchema(let refusedClass, let refusedProperty, let reason)? = error else {
            Issue.record("expected invalidSchema, got \(String(describing: error))")
            return nil
        }
        #expect(refusedClass == className)
        #expect(refusedProperty == property)
        return reason
    }

    @Test func everyLinkToAnAsymmetricObjectIsRefusedWhenTheRealmOpens() async throws {
        let cases: [(ObjectBase.Type, String, String)] = [
            (Station.self, "Station", "sensor"),
            (ListHolder.self, "ListHolder", "sensors"),
            (SetHolder.self, "SetHolder", "sensors"),
            (MapHolder.self, "MapHolder", "sensors"),
            (EmbeddedHolder.self, "EmbeddedHolder", "sensors"),
            (Relay.self, "Relay", "upstream"),
        ]
        for (type, className, property) in cases {
            let reason = await refusal([WeatherSensor.self, type] + (type == EmbeddedHolder.self ? [EmbeddedOwner.self] : []),
                                       className: className, property: property)
            #expect(reason == "'WeatherSensor' is an asymmetric object; asymmetric objects cannot be linked to", "\(className)")
        }
    }

    @Test func theAsymmetricLinkRefusalNamesClassPropertyAndAsymmetricType() async throws {
        let error = await #expect(throws: FloeError.self) {
            _ = try await inMemoryRealm("refusal", objectTypes: [WeatherSensor.self, Station.self])
        }
        #expect(error?.description == "Invalid model class 'Station', property 'sensor': 'WeatherSensor' is an asymmetric object; asymmetric objects cannot be linked to.")
    }

    @Test func aRefusedModelOpensNothingAndTheFileStillOpensWithAValidModel() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        await #expect(throws: FloeError.self) {
            _ = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [WeatherSensor.self, ListHolder.self]))
        }
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [WeatherSensor.self, Person.self]))
        try await realm.write { realm in
            try realm.create(WeatherSensor.self, value: ["_id": ObjectId.generate(), "deviceId": "WX1"])
            _ = try realm.create(Person.self, value: ["name": "Ada"])
        }
        #expect(try await realm.read { realm in realm.objects(Person.self).map(\.name) } == ["Ada"])
    }

    /// Without `objectTypes`, a class is checked when first used: the write that uses one
    /// linking to an asymmetric class throws and leaves the realm as it was.
    @Test func aClassLinkingToAnAsymmetricOneIsRefusedWhenFirstUsed() async throws {
        let realm = try await inMemoryRealm("refusal-lazy")
        let error = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                _ = try realm.create(Person.self, value: ["name": "Ada"])
                _ = try realm.create(MapHolder.self, value: ["sensors": ["a": ["_id": ObjectId.generate(), "deviceId": "M 1"]]])
            }
        }
        #expect(error?.description == "Invalid model class 'MapHolder', property 'sensors': 'WeatherSensor' is an asymmetric object; asymmetric objects cannot be linked to.",
                "\(String(describing: error))")
        #expect(try await realm.read { realm in realm.objects(Person.self).count } == 0)
    }

    /// The compiler keeps a non-object out of the builder's member lookup (see the compile-fail
    /// cases); should a key path rooted at a value ever reach it, the query is a typed error
    /// naming the class and the key path, not a crash.
    @Test func aKeyPathRootedAtAValueIsATypedErrorInTheBuilder() async throws {
        let realm = try await inMemoryRealm("builder-root", objectTypes: [Person.self])
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in
                let smuggled = unsafeBitCast(\Date.timeIntervalSince1970, to: KeyPath<Person, Double>.self)
                _ = try realm.objects(Person.self).where { query in
                    let birthday: Query<Person> = unsafeBitCast(query.birthday, to: Query<Person>.self)
                    return birthday[dynamicMember: smuggled] > 5
                }.count
            }
        }
        guard case .invalidKeyPath(let className, let keyPath, let reason)? = error else {
            Issue.record("expected invalidKeyPath, got \(String(describing: error))")
            return
        }
        #expect(className == "Person")
        #expect(keyPath.hasPrefix("birthday."), "\(keyPath)")
        #expect(reason.contains("Date is not a model class"), "\(reason)")
    }

    @Test func schemaDiscoveryOfAValueTypeIsATypedError() throws {
        let notAClass = unsafeBitCast(Date.self as Any.Type, to: ObjectBase.Type.self)
        let error = #expect(throws: FloeError.self) { _ = try SchemaDiscovery.schema(for: notAClass) }
        guard case .invalidSchema(let className, _, let reason)? = error else {
            Issue.record("expected invalidSchema, got \(String(describing: error))")
            return
        }
        #expect(className == "Date")
        #expect(reason.contains("not a model class"))
    }
}
