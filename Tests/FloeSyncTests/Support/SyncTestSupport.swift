import Foundation
import Floe
import Testing
import FloeSync

final class Todo: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var done = false
    @Persisted var priority = 0
    @Persisted var tags: List<String>
    @Persisted var owner: Person?
    @Persisted var labels: MutableSet<String>
    @Persisted var scores: Map<String, Int>
}

final class Person: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var name = ""
}

/// A class that stays on the device: it has no primary key.
final class Draft: Object {
    @Persisted var text = ""
}

/// A temporary directory holding test realms, removed at the end.
final class Scratch {
    let directory: URL

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("floe-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: directory) }

    func configuration(_ name: String) -> Realm.Configuration {
        var configuration = Realm.Configuration(fileURL: directory.appendingPathComponent("\(name).floe"))
        configuration.objectTypes = [Todo.self, Person.self, Draft.self, OwnedNote.self, SyncClient.stateType]
        configuration.schemaVersion = 1
        return configuration
    }
}

let testSchema = SyncSchema(version: 1, classes: [
    SyncClass(name: "Person", primaryKey: "id", properties: [
        SyncProperty(name: "id", kind: .string),
        SyncProperty(name: "name", kind: .string),
    ]),
    SyncClass(name: "Todo", primaryKey: "id", properties: [
        SyncProperty(name: "id", kind: .int),
        SyncProperty(name: "title", kind: .string),
        SyncProperty(name: "done", kind: .bool),
        SyncProperty(name: "priority", kind: .int),
        SyncProperty(name: "tags", kind: .string, collection: .list),
        SyncProperty(name: "owner", kind: .link, isOptional: true, target: "Person"),
        SyncProperty(name: "labels", kind: .string, collection: .set),
        SyncProperty(name: "scores", kind: .int, collection: .map),
    ]),
])

func fastOptions() -> SyncClient.Options {
    var options = SyncClient.Options()
    options.minimumBackoff = .milliseconds(5)
    options.maximumBackoff = .milliseconds(50)
    return options
}

/// A realm of `scratch` for each of `names`, each with a started client syncing `Todo` and
/// `Person` through `server`.
func startedClients(_ names: [String], in scratch: Scratch, server: FakeServer) async throws -> (realms: [Realm], clients: [SyncClient]) {
    var realms: [Realm] = []
    var clients: [SyncClient] = []
    for name in names {
        let realm = try await Realm(configuration: scratch.configuration(name))
        let client = try SyncClient(realm: realm, types: [Todo.self, Person.self], transport: server, options: fastOptions())
        try await client.start()
        realms.append(realm)
        clients.append(client)
    }
    return (realms, clients)
}

/// The synced objects of a realm, as the server's rules describe them.
func syncedObjects(of realm: Realm) async throws -> [SyncObjectID: [String: SyncValue]] {
    try await realm.read { realm in
        var objects: [SyncObjectID: [String: SyncValue]] = [:]
        for todo in realm.objects(Todo.self) {
            objects[SyncObjectID(className: "Todo", key: .int(Int64(todo.id)))] = [
                "id": .int(Int64(todo.id)), "title": .string(todo.title), "done": .bool(todo.done),
                "priority": .int(Int64(todo.priority)), "tags": .list(todo.tags.map { .string($0) }),
                "owner": todo.owner.map { .link(className: "Person", key: .string($0.id)) } ?? .null,
                "labels": .list(todo.labels.sorted().map { .string($0) }),
                "scores": .map(Dictionary(uniqueKeysWithValues: todo.scores.map { ($0.key, .int(Int64($0.value))) })),
            ]
        }
        for person in realm.objects(Person.self) {
            objects[SyncObjectID(className: "Person", key: .string(person.id))] = ["id": .string(person.id), "name": .string(person.name)]
        }
        return objects
    }
}

/// Polls `condition` until it holds or `seconds` of polling pass. Only the time the process
/// could run counts: a poll that wakes late (every thread of the process was busy with the
/// suite's other tests, as happens for minutes under the full suite on two cores) counts as the
/// 10 ms it meant to sleep, plus a little. A client starved of threads is not a client that
/// hangs, and the client's tasks wait in the same queue as this one.
func eventually(_ seconds: Double = 30, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let clock = ContinuousClock()
    let budget = Duration.seconds(seconds)
    let interval = Duration.milliseconds(10)
    var spent = Duration.zero
    while spent < budget {
        if try await condition() { return true }
        let asleep = clock.now
        try? await Task.sleep(for: interval)
        spent += min(clock.now - asleep, interval * 5)
    }
    return try await condition()
}

/// Whether the client's realm holds the server's newest version.
func caughtUp(_ client: SyncClient, _ server: FakeServer) async -> Bool {
    let version = await server.version
    return await client.serverVersion == version
}

extension Trait where Self == TimeLimitTrait {
    /// The time limit of a sync test that could hang: six minutes. It is there to end a hang,
    /// not to time the work: alone such a test takes under a second, but under the whole suite
    /// every await of the client, the realm and the server waits behind the jobs of hundreds of
    /// other tests on two threads (one measured 250 s).
    static var hangLimit: Self { .timeLimit(.minutes(6)) }
}
