import Foundation
import Testing
import Floe
import FloeSync

final class Geo: EmbeddedObject {
    @Persisted var lat = 0.0
    @Persisted var lon = 0.0
}

final class PostalAddress: EmbeddedObject {
    @Persisted var street = ""
    @Persisted var city = ""
    @Persisted var geo: Geo?
}

final class Customer: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var address: PostalAddress?
    @Persisted var previous: List<PostalAddress>
    @Persisted var places: Map<String, PostalAddress?>
}

private func embeddedConfiguration(_ scratch: Scratch, _ name: String) -> Realm.Configuration {
    var configuration = Realm.Configuration(fileURL: scratch.directory.appendingPathComponent("\(name).floe"))
    configuration.objectTypes = [Customer.self, PostalAddress.self, Geo.self, SyncClient.stateType]
    configuration.schemaVersion = 1
    return configuration
}

private func value(_ address: PostalAddress?) -> SyncValue {
    guard let address else { return .null }
    let geo: SyncValue = address.geo.map { .map(["lat": .double($0.lat), "lon": .double($0.lon)]) } ?? .null
    return .map(["street": .string(address.street), "city": .string(address.city), "geo": geo])
}

/// Every customer of a realm, embedded objects nested, as the server's rules describe them.
private func customers(of realm: Realm) async throws -> [SyncObjectID: [String: SyncValue]] {
    try await realm.read { realm in
        var objects: [SyncObjectID: [String: SyncValue]] = [:]
        for customer in realm.objects(Customer.self) {
            var places: [String: SyncValue] = [:]
            for (key, address) in customer.places { places[key] = value(address) }
            objects[SyncObjectID(className: "Customer", key: .int(Int64(customer.id)))] = [
                "id": .int(Int64(customer.id)), "name": .string(customer.name), "address": value(customer.address),
                "previous": .list(customer.previous.map { value($0) }), "places": .map(places),
            ]
        }
        return objects
    }
}

/// Embedded objects travel inside their owner: nested values in the owner's change, a change
/// made only inside an embedded object uploaded as a change of its owner's property, and
/// recreated under the owner on the other device.
@Suite(.hangLimit) struct EmbeddedSyncTests {
    private func pair(_ scratch: Scratch) async throws -> (Realm, Realm, FakeServer, SyncClient, SyncClient) {
        let a = try await Realm(configuration: embeddedConfiguration(scratch, "a"))
        let b = try await Realm(configuration: embeddedConfiguration(scratch, "b"))
        let schema = try SyncSchema(realm: a, classNames: ["Customer"], version: 1)
        let server = FakeServer(schema: schema)
        let clientA = try SyncClient(realm: a, types: [Customer.self], transport: server, options: fastOptions())
        let clientB = try SyncClient(realm: b, types: [Customer.self], transport: server, options: fastOptions())
        try await clientA.start()
        try await clientB.start()
        return (a, b, server, clientA, clientB)
    }

    private func settle(_ clients: SyncClient..., server: FakeServer) async -> Bool {
        for client in clients { await client.waitUntilSynchronized() }
        return await eventually {
            for client in clients where !(await caughtUp(client, server)) { return false }
            return true
        }
    }

    @Test func theSchemaDescribesEmbeddedPropertiesWithTheirOwnProperties() async throws {
        let scratch = try Scratch()
        let realm = try await Realm(configuration: embeddedConfiguration(scratch, "schema"))
        let schema = try SyncSchema(realm: realm, classNames: ["Customer"], version: 1)
        let address = schema["Customer"]?.property(named: "address")
        #expect(address?.kind == .embedded && address?.target == "PostalAddress")
        #expect(address?.properties?.first { $0.name == "geo" }?.kind == .embedded)
        #expect(address?.properties?.first { $0.name == "geo" }?.properties?.map(\.name).sorted() == ["lat", "lon"])
        #expect(schema["Customer"]?.property(named: "previous")?.collection == .list)
        #expect(schema["Customer"]?.property(named: "places")?.kind == .embedded)
        #expect(throws: SyncError.noPrimaryKey(className: "PostalAddress")) {
            try SyncSchema(realm: realm, classNames: ["PostalAddress"], version: 1)
        }
        // A nested value that does not fit is refused, naming the owner's class, property and value.
        let bad = ObjectChange(className: "Customer", key: .int(1), operation: .update,
                               values: ["address": .map(["city": .int(4)])])
        #expect(throws: SyncError.self) { try schema.validate(bad) }
        do { try schema.validate(bad) } catch {
            #expect(error.description.contains("Customer") && error.description.contains("address") && error.description.contains("4"))
        }
        let unknown = ObjectChange(className: "Customer", key: .int(1), operation: .update,
                                   values: ["address": .map(["planet": .string("Mars")])])
        #expect(throws: SyncError.self) { try schema.validate(unknown) }
        let good = ObjectChange(className: "Customer", key: .int(1), operation: .update,
                                values: ["address": .map(["city": .string("Porto"), "geo": .map(["lat": .double(1)])]),
                                         "previous": .list([.map(["street": .string("x")])]), "places": .map(["home": .null])])
        try schema.validate(good)
    }

    @Test func embeddedObjectsConvergeInsideTheirOwner() async throws {
        let scratch = try Scratch()
        let (a, b, server, clientA, clientB) = try await pair(scratch)

        try await a.write { realm in
            _ = try realm.create(Customer.self, value: [
                "id": 1, "name": "Ana",
                "address": ["street": "Rua A", "city": "Porto", "geo": ["lat": 41.1, "lon": -8.6]],
                "previous": [["street": "Calle B", "city": "Vigo"], ["street": "Rua C", "city": "Braga"]],
                "places": ["work": ["street": "Av. D", "city": "Lisboa"]],
            ])
        }
        #expect(await settle(clientA, clientB, server: server))
        let first = try await b.read { realm in
            realm.object(ofType: Customer.self, forPrimaryKey: 1).map {
                ($0.address?.city, $0.address?.geo?.lat, $0.previous.map(\.city), $0.places["work"]??.street)
            }
        }
        #expect(first?.0 == "Porto" && first?.1 == 41.1 && first?.2 == ["Vigo", "Braga"] && first?.3 == "Av. D")
        // The server holds the embedded objects inside their owner, not as objects of their own.
        #expect(await server.objects.keys.map(\.className) == ["Customer"])
        #expect(try await customers(of: a) == server.objects)
        #expect(try await customers(of: b) == server.objects)

        // A change made only inside an embedded object travels as a change of its owner's property.
        let logged = await server.log.count
        try await a.write { realm in realm.object(ofType: Customer.self, forPrimaryKey: 1)!.address!.city = "Gaia" }
        #expect(await settle(clientA, clientB, server: server))
        let uploaded = await server.log.dropFirst(logged).flatMap(\.changes)
        #expect(uploaded.count == 1)
        #expect(uploaded.first?.className == "Customer" && uploaded.first?.operation == .update)
        #expect(uploaded.first.map { Array($0.values.keys) } == ["address"])
        #expect(try await b.read { realm in realm.object(ofType: Customer.self, forPrimaryKey: 1)?.address?.city } == "Gaia")

        // Nested embedded, from the other side; and a list element's and a map entry's property.
        try await b.write { realm in
            let customer = realm.object(ofType: Customer.self, forPrimaryKey: 1)!
            customer.address!.geo!.lat = 41.2
            customer.previous[1].street = "Rua E"
        }
        try await a.write { realm in
            realm.object(ofType: Customer.self, forPrimaryKey: 1)!.places["work"]??.city = "Sintra"
        }
        #expect(await settle(clientA, clientB, server: server))
        #expect(await settle(clientA, clientB, server: server))
        let converged = try await a.read { realm in
            realm.object(ofType: Customer.self, forPrimaryKey: 1).map { ($0.address?.geo?.lat, $0.previous[1].street, $0.places["work"]??.city) }
        }
        #expect(converged?.0 == 41.2 && converged?.1 == "Rua E" && converged?.2 == "Sintra")
        #expect(try await customers(of: a) == server.objects)
        #expect(try await customers(of: b) == server.objects)

        // Replacing, appending and removing embedded objects, and clearing one.
        try await b.write { realm in
            let customer = realm.object(ofType: Customer.self, forPrimaryKey: 1)!
            customer.previous.append(try PostalAddress(value: ["street": "Rua F", "city": "Aveiro"]))
            customer.previous.remove(at: 0)
            customer.places["home"] = try PostalAddress(value: ["city": "Faro"])
            customer.address!.geo = nil
        }
        #expect(await settle(clientA, clientB, server: server))
        let replaced = try await a.read { realm in
            realm.object(ofType: Customer.self, forPrimaryKey: 1).map { ($0.previous.map(\.city), $0.places["home"]??.city, $0.address?.geo == nil) }
        }
        #expect(replaced?.0 == ["Braga", "Aveiro"] && replaced?.1 == "Faro" && replaced?.2 == true)
        #expect(try await customers(of: a) == server.objects)
        #expect(try await customers(of: b) == server.objects)

        // Deleting the owner deletes its embedded objects on every device.
        try await a.write { realm in try realm.delete(realm.object(ofType: Customer.self, forPrimaryKey: 1)!) }
        #expect(await settle(clientA, clientB, server: server))
        #expect(try await b.read { realm in realm.objects(Customer.self).count } == 0)
        let remaining = await server.objects
        #expect(try await customers(of: b) == remaining && remaining.isEmpty)
        await clientA.stop()
        await clientB.stop()
    }
}

/// A class whose properties are persisted under other names.
final class Note: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var stars = 0
    override class func propertiesMapping() -> [String: String] { ["id": "note_id", "text": "body"] }
}

/// `propertiesMapping()` renames: the persisted name is what travels, and applying maps it back.
@Suite(.hangLimit) struct RenamedPropertySyncTests {
    @Test func persistedNamesTravelAndApply() async throws {
        let scratch = try Scratch()
        func configuration(_ name: String) -> Realm.Configuration {
            var configuration = Realm.Configuration(fileURL: scratch.directory.appendingPathComponent("\(name).floe"))
            configuration.objectTypes = [Note.self, SyncClient.stateType]
            return configuration
        }
        let a = try await Realm(configuration: configuration("a"))
        let b = try await Realm(configuration: configuration("b"))
        let schema = try SyncSchema(realm: a, classNames: ["Note"], version: 0)
        #expect(schema["Note"]?.primaryKey == "note_id" && schema["Note"]?.property(named: "body") != nil)
        let server = FakeServer(schema: schema)
        let clientA = try SyncClient(realm: a, types: [Note.self], transport: server, options: fastOptions())
        let clientB = try SyncClient(realm: b, types: [Note.self], transport: server, options: fastOptions())
        try await clientA.start()
        try await clientB.start()
        try await a.write { realm in _ = try realm.create(Note.self, value: ["id": 7, "text": "hello", "stars": 2]) }
        await clientA.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(clientB, server) })
        #expect(await server.objects[SyncObjectID(className: "Note", key: .int(7))] == ["note_id": .int(7), "body": .string("hello"), "stars": .int(2)])
        try await b.write { realm in realm.object(ofType: Note.self, forPrimaryKey: 7)!.text = "hello again" }
        await clientB.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(clientA, server) })
        let onA = try await a.read { realm in realm.object(ofType: Note.self, forPrimaryKey: 7).map { ($0.text, $0.stars) } }
        #expect(onA?.0 == "hello again" && onA?.1 == 2)
        await clientA.stop()
        await clientB.stop()
    }
}

/// A class with mixed values.
final class Bag: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var value: AnyRealmValue
    @Persisted var values: List<AnyRealmValue>
}

/// Each mixed value's kind and contents, comparable across realms (objects by class and key).
private func describe(_ value: AnyRealmValue) -> String {
    switch value {
    case .none: "none"
    case .int(let int): "int \(int)"
    case .bool(let bool): "bool \(bool)"
    case .float(let float): "float \(float)"
    case .double(let double): "double \(double)"
    case .string(let string): "string \(string)"
    case .data(let data): "data \(Array(data))"
    case .date(let date): "date \(date.timeIntervalSince1970)"
    case .objectId(let id): "objectId \(id)"
    case .decimal128(let decimal): "decimal \(decimal)"
    case .uuid(let uuid): "uuid \(uuid)"
    case .object(let object): "object \(type(of: object).className()) \((object as? Bag)?.id ?? -1)"
    case .list(let list): "list [" + list.map(describe).joined(separator: ", ") + "]"
    case .dictionary(let map): "dictionary [" + map.map { "\($0.key): \(describe($0.value))" }.sorted().joined(separator: ", ") + "]"
    }
}

@Suite(.hangLimit) struct MixedSyncTests {
    @Test func mixedValuesApplyAsTheirKinds() async throws {
        let scratch = try Scratch()
        func configuration(_ name: String) -> Realm.Configuration {
            var configuration = Realm.Configuration(fileURL: scratch.directory.appendingPathComponent("\(name).floe"))
            configuration.objectTypes = [Bag.self, SyncClient.stateType]
            return configuration
        }
        let a = try await Realm(configuration: configuration("a"))
        let b = try await Realm(configuration: configuration("b"))
        let server = FakeServer(schema: try SyncSchema(realm: a, classNames: ["Bag"], version: 0))
        let clientA = try SyncClient(realm: a, types: [Bag.self], transport: server, options: fastOptions())
        let clientB = try SyncClient(realm: b, types: [Bag.self], transport: server, options: fastOptions())
        try await clientA.start()
        try await clientB.start()
        let id = ObjectId.generate()
        let uuid = UUID()
        try await a.write { realm in
            let other = try realm.create(Bag.self, value: ["id": 2, "value": AnyRealmValue.string("other")])
            let bag = try realm.create(Bag.self, value: ["id": 1])
            bag.value = .object(other)
            bag.values.append(objectsIn: [
                .int(4), .bool(true), .double(2.5), .string("x"), .data(Data([1, 2])),
                .date(Date(timeIntervalSince1970: 1_732_550_400.5)), .objectId(id), .decimal128(try Decimal128(string: "1.25")),
                .uuid(uuid), .none, .object(other),
            ])
        }
        await clientA.waitUntilSynchronized()
        #expect(await eventually { await caughtUp(clientB, server) })
        func read(_ realm: Realm) async throws -> [String] {
            try await realm.read { realm in
                guard let bag = realm.object(ofType: Bag.self, forPrimaryKey: 1) else { return [] }
                return [describe(bag.value)] + bag.values.map(describe)
            }
        }
        let onA = try await read(a)
        #expect(onA.count == 12)
        #expect(try await read(b) == onA)
        await clientA.stop()
        await clientB.stop()
    }
}
