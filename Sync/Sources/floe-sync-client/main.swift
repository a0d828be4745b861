import Foundation
import Floe
import FloeSync
import FloeSyncWebSocket

// floe-sync-client: a FloeSync client for the end-to-end test and the benchmarks.
//
//   floe-sync-client schema                      prints the sync schema of its model (JSON)
//   floe-sync-client run --file F --server URL --name N [--seconds S] [--seed S] [--bulk K] [--flaky]
//       random writes for S seconds (K inserts in one transaction first, when given), with
//       random disconnects when --flaky; then waits until synchronized. Each write is
//       journaled to F.journal after its commit.
//   floe-sync-client dump --file F               prints the synced objects as sync values (JSON)
//   floe-sync-client bench-upload --file F --server URL --objects N
//   floe-sync-client bench-latency --server URL [--server-b URL] --dir D --samples N [--idle N]
//   floe-sync-client bench-catchup --file F --server URL
//   floe-sync-client bench-fanout --server URL --clients N --samples K
//
// Every command that connects takes --token-file F (a JWT, read again before each connection,
// so that a renewed file replaces an expired token) and --ca F (the CA that signed a wss://
// server's certificate).

final class Item: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var title = ""
    @Persisted var count = 0
    @Persisted var done = false
    @Persisted var score = 0.0
    @Persisted var tags: List<String>
    @Persisted var owner: Owner?
    @Persisted var place: Place?
    @Persisted var stops: List<Place>
    /// A mixed value (`jsonb` in PostgreSQL), of a kind that changes with the item's count.
    @Persisted var note: AnyRealmValue
}

/// Embedded in an item: travels inside it (a nested value, `jsonb` in PostgreSQL).
final class Place: EmbeddedObject {
    @Persisted var city = ""
    @Persisted var visits = 0
    @Persisted var inner: Place?
}

final class Owner: Object {
    @Persisted(primaryKey: true) var id = ""
    @Persisted var name = ""
}

let syncedTypes: [Object.Type] = [Item.self, Owner.self]

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

/// The transport to `server`, trusting the CA of `--ca` when given.
func makeTransport(_ server: String) -> WebSocketSyncTransport {
    WebSocketSyncTransport(url: server, certificateAuthorityFile: argument("--ca"))
}

/// Options whose token provider reads `--token-file` before each connection.
func connectionOptions() -> SyncClient.Options {
    var options = SyncClient.Options()
    if let path = argument("--token-file") {
        options.tokenProvider = {
            try String(contentsOfFile: path, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        }
    }
    return options
}

func configuration(_ path: String) -> Realm.Configuration {
    var configuration = Realm.Configuration(fileURL: URL(fileURLWithPath: path))
    configuration.objectTypes = [Item.self, Owner.self, Place.self, SyncClient.stateType]
    configuration.schemaVersion = 1
    return configuration
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("floe-sync-client: \(message)\n".utf8))
    exit(1)
}

/// Appends lines to a journal file, each written through before the next write starts.
final class Journal {
    let handle: FileHandle
    init(path: String) {
        if !FileManager.default.fileExists(atPath: path) { _ = FileManager.default.createFile(atPath: path, contents: nil) }
        guard let handle = FileHandle(forWritingAtPath: path) else { fail("cannot open \(path)") }
        handle.seekToEndOfFile()
        self.handle = handle
    }
    func write(_ line: String) { handle.write(Data((line + "\n").utf8)) }
}

func value(_ place: Place?) -> SyncValue {
    guard let place else { return .null }
    return .map(["city": .string(place.city), "visits": .int(Int64(place.visits)), "inner": value(place.inner)])
}

/// The kinds of mixed value the test writes, as sync values.
func note(_ value: AnyRealmValue) -> SyncValue {
    switch value {
    case .none: return .null
    case .int(let int): return .int(Int64(int))
    case .string(let string): return .string(string)
    case .decimal128(let decimal): return .decimal(decimal.stringValue)
    default: return .string("unexpected \(value)")
    }
}

func dump(_ realm: Realm) async throws -> [String: [String: [String: SyncValue]]] {
    try await realm.read { realm in
        var items: [String: [String: SyncValue]] = [:]
        for item in realm.objects(Item.self) {
            items[String(item.id)] = [
                "id": .int(Int64(item.id)), "title": .string(item.title), "count": .int(Int64(item.count)),
                "done": .bool(item.done), "score": .double(item.score), "tags": .list(item.tags.map { .string($0) }),
                "owner": item.owner.map { .link(className: "Owner", key: .string($0.id)) } ?? .null,
                "place": value(item.place), "stops": .list(item.stops.map { value($0) }), "note": note(item.note),
            ]
        }
        var owners: [String: [String: SyncValue]] = [:]
        for owner in realm.objects(Owner.self) { owners[owner.id] = ["id": .string(owner.id), "name": .string(owner.name)] }
        return ["Item": items, "Owner": owners]
    }
}

func printJSON<T: Encodable>(_ value: T) throws {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    print(String(decoding: try encoder.encode(value), as: UTF8.self))
    fflush(nil)
}

/// Waits for `client` to be synchronized, giving up after `seconds`.
func synchronize(_ client: SyncClient, seconds: Double) async -> Bool {
    await withTaskGroup(of: Bool.self) { group in
        group.addTask { await client.waitUntilSynchronized(); return true }
        group.addTask { try? await Task.sleep(for: .seconds(seconds)); return false }
        let first = await group.next()!
        group.cancelAll()
        return first
    }
}

let command = CommandLine.arguments.dropFirst().first ?? ""
switch command {
case "schema":
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("floe-sync-schema-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let realm = try await Realm(configuration: configuration(directory.appendingPathComponent("schema.floe").path))
    try printJSON(try SyncSchema(realm: realm, classNames: ["Item", "Owner"], version: 1))

case "dump":
    guard let file = argument("--file") else { fail("dump needs --file") }
    let realm = try await Realm(configuration: configuration(file))
    try printJSON(try await dump(realm))

case "run":
    guard let file = argument("--file"), let server = argument("--server"), let name = argument("--name") else {
        fail("run needs --file, --server and --name")
    }
    let seconds = Double(argument("--seconds") ?? "0") ?? 0
    var random = SystemRandomNumberGenerator()
    let flaky = CommandLine.arguments.contains("--flaky")
    let realm = try await Realm(configuration: configuration(file))
    let journal = Journal(path: file + ".journal")
    let transport = makeTransport(server)
    var options = connectionOptions()
    options.minimumBackoff = .milliseconds(20)
    options.maximumBackoff = .milliseconds(500)
    var client = try SyncClient(realm: realm, types: syncedTypes, transport: transport, options: options)
    try await client.start()
    // Each client inserts in its own range of ids; updates and deletes reach anyone's objects.
    let base = (Int(name.filter(\.isNumber)) ?? 0) * 1_000_000
    var next = try await realm.read { realm in (realm.objects(Item.self).filter { $0.id >= base && $0.id < base + 1_000_000 }.map(\.id).max() ?? base) + 1 }
    var sequence = 0
    func marker() -> String { sequence += 1; return "\(name)-\(next)-\(sequence)-\(UInt32.random(in: 0...UInt32.max))" }
    if let bulk = Int(argument("--bulk") ?? "0"), bulk > 0 {
        let first = next
        var titles: [String] = []
        for _ in 0..<bulk { titles.append(marker()) }
        let version = try await realm.write { realm -> Int in
            for (offset, title) in titles.enumerated() { _ = try realm.create(Item.self, value: ["id": first + offset, "title": title, "tags": ["bulk"]]) }
            return 0
        }
        _ = version
        for (offset, title) in titles.enumerated() { journal.write("insert Item \(first + offset) \(title)") }
        next += bulk
        print("bulk \(bulk)")
        fflush(nil)
    }
    let started = Date()
    var writes = 0
    while Date().timeIntervalSince(started) < seconds {
        let existing = try await realm.read { realm in realm.objects(Item.self).map(\.id) }
        let owners = try await realm.read { realm in realm.objects(Owner.self).map(\.id) }
        let operations = Int.random(in: 1...4, using: &random)
        var lines: [String] = []
        var plan: [(kind: Int, id: Int, title: String, owner: String?)] = []
        for _ in 0..<operations {
            let roll = Int.random(in: 0..<100, using: &random)
            if roll < 40 || existing.isEmpty {
                let title = marker()
                plan.append((0, next, title, owners.randomElement(using: &random)))
                lines.append("insert Item \(next) \(title)")
                next += 1
            } else if roll < 85 {
                let title = marker()
                let id = existing.randomElement(using: &random)!
                plan.append((1, id, title, nil))
                lines.append("update Item \(id) \(title)")
            } else if roll < 93 {
                plan.append((2, existing.randomElement(using: &random)!, "", nil))
            } else {
                plan.append((3, 0, "\(name)-owner-\(Int.random(in: 0..<5, using: &random))", nil))
            }
        }
        let steps = plan
        try await realm.write { realm in
            for step in steps {
                switch step.kind {
                case 0:
                    let item = try realm.create(Item.self, value: ["id": step.id, "title": step.title, "count": 1, "score": Double(step.id) / 7,
                                                                   "tags": ["t\(step.id % 3)"],
                                                                   "place": ["city": step.title, "inner": ["city": "in \(step.id)"]]], update: .modified)
                    if let owner = step.owner { item.owner = realm.object(ofType: Owner.self, forPrimaryKey: owner) }
                case 1:
                    if let item = realm.object(ofType: Item.self, forPrimaryKey: step.id) {
                        item.title = step.title
                        item.count += 1
                        item.done.toggle()
                        // Every update appends a tag of its own: appends made on several
                        // devices at once must all survive the merge (lists merge by position).
                        item.tags.append("tag-" + step.title)
                        // Changes made only inside embedded objects travel as changes of the item.
                        if let place = item.place {
                            place.visits += 1
                            place.inner?.city = step.title
                        }
                        if item.count % 2 == 0 { item.stops.append(try Place(value: ["city": step.title])) }
                        switch item.count % 4 {
                        case 0: item.note = .string(step.title)
                        case 1: item.note = .int(item.count)
                        case 2: item.note = .decimal128(Decimal128(integerLiteral: item.count) / 8)
                        default: item.note = .none
                        }
                        if item.stops.count > 3 { item.stops.remove(at: 0) }
                    }
                case 2:
                    if let item = realm.object(ofType: Item.self, forPrimaryKey: step.id) { try realm.delete(item) }
                default:
                    _ = try realm.create(Owner.self, value: ["id": step.title, "name": "name \(Int.random(in: 0..<1000))"], update: .modified)
                }
            }
        }
        // Two updates of one object in one transaction commit only the second title.
        var lastUpdate: [String: Int] = [:]
        for (index, line) in lines.enumerated() where line.hasPrefix("update") { lastUpdate[line.split(separator: " ")[2].description] = index }
        for (index, line) in lines.enumerated() where !line.hasPrefix("update") || lastUpdate[line.split(separator: " ")[2].description] == index {
            journal.write(line)
        }
        for line in lines where line.hasPrefix("update") {
            let parts = line.split(separator: " ")
            journal.write("tag Item \(parts[2]) tag-\(parts[3])")
        }
        writes += 1
        if flaky && Int.random(in: 0..<40, using: &random) == 0 {
            // A disconnect: the client goes, writes go on offline, a new client takes over.
            await client.stop()
            try await Task.sleep(for: .milliseconds(Int.random(in: 50...400, using: &random)))
            client = try SyncClient(realm: realm, types: syncedTypes, transport: transport, options: options)
            try await client.start()
        }
        try await Task.sleep(for: .milliseconds(Int.random(in: 0...30, using: &random)))
    }
    let synchronized = await synchronize(client, seconds: 120)
    let acknowledged = await client.acknowledgedLocalVersion
    let serverVersion = await client.serverVersion
    let error = await client.lastError
    print("\(name): \(writes) write transactions, synchronized=\(synchronized) acknowledged local version \(acknowledged), server version \(serverVersion)\(error.map { ", last error: \($0)" } ?? "")")
    await client.stop()
    if !synchronized { exit(3) }

case "bench-upload":
    // Objects/s into PostgreSQL: N objects written offline in transactions of 100, then one
    // client uploads them; timed from start() until the server has acknowledged them all.
    guard let file = argument("--file"), let server = argument("--server"), let count = Int(argument("--objects") ?? "") else {
        fail("bench-upload needs --file, --server and --objects")
    }
    let realm = try await Realm(configuration: configuration(file))
    var written = 0
    while written < count {
        let first = written
        let last = min(count, written + 100)
        try await realm.write { realm in
            for id in first..<last {
                _ = try realm.create(Item.self, value: ["id": id, "title": "item \(id)", "count": id, "score": Double(id) / 3, "tags": ["a", "b"]])
            }
        }
        written = last
    }
    let client = try SyncClient(realm: realm, types: syncedTypes, transport: makeTransport(server), options: connectionOptions())
    let clock = ContinuousClock()
    let started = clock.now
    try await client.start()
    guard await synchronize(client, seconds: 600) else { fail("not synchronized after 600 s: \(await client.lastError.map(String.init(describing:)) ?? "")") }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    print(String(format: "upload: %d objects in %.2f s = %.0f objects/s", count, seconds, Double(count) / seconds))
    await client.stop()

case "bench-latency":
    // From a commit on one client to the change in another client's realm: A writes one
    // object, B's realm holds it once B has applied the next server version.
    guard let directory = argument("--dir"), let server = argument("--server"), let samples = Int(argument("--samples") ?? "") else {
        fail("bench-latency needs --dir, --server and --samples")
    }
    let a = try await Realm(configuration: configuration(directory + "/latency-a.floe"))
    let b = try await Realm(configuration: configuration(directory + "/latency-b.floe"))
    // B through another server on the same database, when given: the change crosses servers.
    let transport = makeTransport(server)
    let clientA = try SyncClient(realm: a, types: syncedTypes, transport: transport, options: connectionOptions())
    let clientB = try SyncClient(realm: b, types: syncedTypes, transport: argument("--server-b").map(makeTransport) ?? transport,
                                 options: connectionOptions())
    try await clientA.start()
    try await clientB.start()
    guard await synchronize(clientA, seconds: 600), await synchronize(clientB, seconds: 600) else { fail("not synchronized") }
    // Other devices connected meanwhile (--idle N), each sent every change as B is.
    let idle = Int(argument("--idle") ?? "0") ?? 0
    var others: [(any SyncConnection, Task<Void, Never>)] = []
    for index in 0..<idle {
        let connection = try await transport.connect(token: try argument("--token-file").map {
            try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)
        })
        try await connection.send(.hello(clientID: "idle-\(UUID().uuidString)-\(index)", protocolVersion: syncProtocolVersion, schemaVersion: 1,
                                         serverVersion: await clientB.serverVersion))
        guard case .welcome? = try await connection.receive() else { fail("idle connection \(index) got no welcome") }
        others.append((connection, Task { while (try? await connection.receive()) != nil {} }))
    }
    let clock = ContinuousClock()
    var latencies: [Double] = []
    // Titles new to this run: on a database that has the samples of an earlier run, each write
    // still changes its object (an unchanged one uploads nothing and B would wait for ever).
    let run = UUID().uuidString.prefix(8)
    for sample in 0..<(samples + 10) {
        let target = await clientB.serverVersion + 1
        let started = clock.now
        try await a.write { realm in _ = try realm.create(Item.self, value: ["id": 50_000_000 + sample, "title": "sample \(sample) of \(run)"], update: .modified) }
        await clientB.waitForServerVersion(target)
        let elapsed = clock.now - started
        guard try await b.read({ realm in realm.object(ofType: Item.self, forPrimaryKey: 50_000_000 + sample) != nil }) else { fail("B misses sample \(sample)") }
        if sample >= 10 { latencies.append(Double(elapsed.components.attoseconds) / 1e15 + Double(elapsed.components.seconds) * 1000) }
    }
    latencies.sort()
    func percentile(_ p: Double) -> Double { latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))] }
    print(String(format: "latency: %d samples, p50 %.2f ms, p99 %.2f ms, max %.2f ms", latencies.count, percentile(0.5), percentile(0.99), latencies.last!)
          + (idle > 0 ? " (\(idle) other devices connected)" : ""))
    for (connection, reader) in others {
        reader.cancel()
        await connection.close()
    }
    await clientA.stop()
    await clientB.stop()

case "bench-catchup":
    // A new client downloads the whole log: timed from start() until the realm holds the
    // server's newest version.
    guard let file = argument("--file"), let server = argument("--server"), let changes = Int(argument("--changes") ?? "") else {
        fail("bench-catchup needs --file, --server and --changes")
    }
    let realm = try await Realm(configuration: configuration(file))
    let client = try SyncClient(realm: realm, types: syncedTypes, transport: makeTransport(server), options: connectionOptions())
    let clock = ContinuousClock()
    let started = clock.now
    try await client.start()
    guard await synchronize(client, seconds: 3600) else { fail("not synchronized after an hour") }
    let elapsed = clock.now - started
    let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    let objects = try await realm.read { realm in realm.objects(Item.self).count }
    print(String(format: "catch-up: %d changes (%d objects) in %.2f s = %.0f changes/s", changes, objects, seconds, Double(changes) / seconds))
    await client.stop()

case "bench-fanout":
    // One change reaching many connected devices: N connections speak the protocol (no realm
    // each, so that the devices' own work does not weigh on the measure), a writer uploads one
    // change at a time, and each connection's delay from the upload to the change's arrival is
    // recorded; the next change goes once every connection has the last one.
    guard let server = argument("--server"), let count = Int(argument("--clients") ?? ""), let samples = Int(argument("--samples") ?? "") else {
        fail("bench-fanout needs --server, --clients and --samples")
    }
    let transport = makeTransport(server)
    let token = try argument("--token-file").map { try String(contentsOfFile: $0, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines) }
    let writer = try await transport.connect(token: token)
    let run = UUID().uuidString.prefix(8)
    try await writer.send(.hello(clientID: "fanout-writer-\(run)", protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: UInt64(Int64.max)))
    guard case .welcome(let latest, _)? = try await writer.receive() else { fail("the writer got no welcome") }
    let clock = ContinuousClock()
    let origin = clock.now
    /// Arrival times, by connection and sample, in milliseconds since `origin`.
    final class Arrivals: @unchecked Sendable {
        // @unchecked: every access holds the lock.
        private let lock = NSLock()
        private var times: [[Double]]
        private var waiting: [Int: CheckedContinuation<Void, Never>] = [:]
        init(clients: Int, samples: Int) { times = Array(repeating: Array(repeating: -1, count: samples), count: clients) }
        func record(client: Int, sample: Int, at time: Double) {
            let resume: CheckedContinuation<Void, Never>? = lock.withLock {
                guard times[client][sample] < 0 else { return nil }
                times[client][sample] = time
                guard times.allSatisfy({ $0[sample] >= 0 }) else { return nil }
                return waiting.removeValue(forKey: sample)
            }
            resume?.resume()
        }
        func wait(for sample: Int) async {
            await withCheckedContinuation { continuation in
                let done = lock.withLock {
                    if times.allSatisfy({ $0[sample] >= 0 }) { return true }
                    waiting[sample] = continuation
                    return false
                }
                if done { continuation.resume() }
            }
        }
        var all: [[Double]] { lock.withLock { times } }
    }
    let arrivals = Arrivals(clients: count, samples: samples)
    let marker = "fanout \(run) "
    var connections: [any SyncConnection] = []
    for index in 0..<count {
        let connection = try await transport.connect(token: token)
        try await connection.send(.hello(clientID: "fanout-\(run)-\(index)", protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: latest))
        guard case .welcome? = try await connection.receive() else { fail("connection \(index) got no welcome") }
        connections.append(connection)
    }
    let readers = connections.enumerated().map { index, connection in
        Task {
            while let message = try? await connection.receive() {
                guard case .changes(_, _, let changes) = message else { continue }
                let now = clock.now - origin
                let milliseconds = Double(now.components.seconds) * 1000 + Double(now.components.attoseconds) / 1e15
                for change in changes {
                    if case .string(let title)? = change.values["title"], title.hasPrefix(marker), let sample = Int(title.dropFirst(marker.count)) {
                        arrivals.record(client: index, sample: sample, at: milliseconds)
                    }
                }
            }
        }
    }
    print("\(count) connections open")
    fflush(nil)
    var sent: [Double] = []
    for sample in 0..<samples {
        let now = clock.now - origin
        sent.append(Double(now.components.seconds) * 1000 + Double(now.components.attoseconds) / 1e15)
        let change = ObjectChange(className: "Item", key: .int(60_000_000 + Int64(sample)), operation: .insert,
                                  values: ["title": .string(marker + String(sample)), "count": .int(0), "done": .bool(false), "score": .double(0)])
        try await writer.send(.upload(transactions: [UploadedTransaction(localVersion: UInt64(sample + 1), changes: [change])], throughLocalVersion: UInt64(sample + 1)))
        guard case .acknowledge? = try await writer.receive() else { fail("the upload of sample \(sample) was not acknowledged") }
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await arrivals.wait(for: sample) }
            group.addTask {
                try? await Task.sleep(for: .seconds(60))
                if !Task.isCancelled { fail("sample \(sample) did not reach every connection within 60 s") }
            }
            await group.next()
            group.cancelAll()
        }
    }
    var delays = arrivals.all.flatMap { times in zip(times, sent).map { $0 - $1 } }
    delays.sort()
    func percentile(_ p: Double) -> Double { delays[min(delays.count - 1, Int(Double(delays.count) * p))] }
    print(String(format: "fan-out: %d connections × %d changes, upload to arrival p50 %.2f ms, p99 %.2f ms, max %.2f ms",
                 count, samples, percentile(0.5), percentile(0.99), delays.last!))
    for reader in readers { reader.cancel() }
    for connection in connections { await connection.close() }
    await writer.close()
    exit(0)

default:
    fail("unknown command '\(command)' (schema, run, dump, bench-upload, bench-latency, bench-catchup, bench-fanout)")
}
