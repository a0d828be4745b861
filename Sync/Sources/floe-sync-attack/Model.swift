import Foundation
import FloeSync

/// One user's device on the wire: its connection, and the objects its stream has given it.
final class Device: @unchecked Sendable {
    // @unchecked: used by one task at a time (the model run's).
    let connection: RawConnection
    var view: [SyncObjectID: [String: SyncValue]] = [:]
    var version: UInt64 = 0
    var localVersion: UInt64 = 0
    /// Messages that decoded as no protocol message.
    var unreadable = 0

    init(connection: RawConnection, version: UInt64) {
        self.connection = connection
        self.version = version
    }

    /// Applies the changes received and returns the answer to the upload in flight (or the
    /// page that brings the device to `target`).
    func answer(within seconds: Double = 30, target: UInt64? = nil) async -> ServerMessage? {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let text = await connection.receiveText(within: deadline.timeIntervalSinceNow) else { return nil }
            guard let message = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)) else {
                unreadable += 1
                continue
            }
            switch message {
            case .changes(let from, let to, let changes):
                if from != version { return .error(.connection(detail: "a page from \(from), the device holds \(version)")) }
                _ = ConflictRules.apply(changes, to: &view)
                version = to
                if let target, version >= target { return message }
            case .acknowledge, .error, .welcome, .images:
                return message
            }
        }
        return nil
    }

    /// Reads the stream until the device holds `target`; nil when it does, else why not.
    func catchUp(to target: UInt64) async -> String? {
        while version < target {
            guard let message = await answer(within: 30, target: target) else { return "no message for 30 s at version \(version) of \(target), close \(connection.close ?? "none")" }
            if case .error = message { return "\(message)" }
        }
        return nil
    }
}

struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// The attack rules, written again in plain Swift: the model the server is checked against.
struct Model {
    struct User {
        var sub: String
        var isAdmin: Bool
        var teams: [String]
    }
    typealias Object = [String: SyncValue]

    static func read(_ object: Object, _ user: User) -> Bool {
        if object["ownerId"] == .string(user.sub) || user.isAdmin { return true }
        if case .string(let team)? = object["teamId"] { return user.teams.contains(team) }
        return false
    }
    static func create(_ object: Object, _ user: User) -> Bool { object["ownerId"] == .string(user.sub) }
    static func update(_ object: Object, _ user: User) -> Bool { object["ownerId"] == .string(user.sub) || user.isAdmin }
    static func delete(_ object: Object, _ user: User) -> Bool { object["ownerId"] == .string(user.sub) }
}

func modelRun(_ minter: Minter, _ report: Report, operations: Int, seed: UInt64) async throws {
    var random = SplitMix(state: seed)
    let teams = ["red", "blue", "green"]
    let users: [Model.User] = (0..<5).map { index in
        Model.User(sub: "user\(index)-\(seed)", isAdmin: index == 0, teams: teams.filter { _ in Bool.random(using: &random) })
    }
    // Keys of this run only (the database may hold earlier runs' objects).
    let base = Int64(seed % 1000) * 1_000_000 + 5_000_000
    var devices: [Device] = []
    for user in users {
        let token = try await minter.hs256(.valid(user.sub, role: user.isAdmin ? "admin" : nil, teams: user.teams))
        guard let (connection, latest, _) = await session(token) else {
            report.check("a session for \(user.sub)", false, "refused")
            return
        }
        let device = Device(connection: connection, version: 0)
        if let failure = await device.catchUp(to: latest) {
            report.check("\(user.sub) catches up", false, failure)
            return
        }
        devices.append(device)
    }
    defer { for device in devices { device.connection.finish() } }
    // What existed before this run, as the model starts from it: only this run's keys count.
    var store: [Int64: Model.Object] = [:]
    var mismatches: [String] = []
    var untyped = 0, allowed = 0, refused = 0
    var latest: UInt64 = 0
    for step in 0..<operations {
        let index = Int.random(in: 0..<5, using: &random)
        let user = users[index], device = devices[index]
        let key = base + Int64.random(in: 0..<60, using: &random)
        let other = users.randomElement(using: &random)!.sub
        let owner = Int.random(in: 0..<10, using: &random) < 6 ? user.sub : other
        let team: SyncValue = Bool.random(using: &random) ? .string(teams.randomElement(using: &random)!) : .null
        let change: ObjectChange
        switch Int.random(in: 0..<10, using: &random) {
        case 0..<4:
            change = ObjectChange(className: "Note", key: .int(key), operation: .insert,
                                  values: ["id": .int(key), "ownerId": .string(owner), "teamId": team, "title": .string("s\(step)")])
        case 4..<6:
            change = ObjectChange(className: "Note", key: .int(key), operation: .update, values: ["title": .string("u\(step)")])
        case 6:
            change = ObjectChange(className: "Note", key: .int(key), operation: .update, values: ["ownerId": .string(other)])
        case 7:
            change = ObjectChange(className: "Note", key: .int(key), operation: .update, values: ["teamId": team])
        default:
            change = ObjectChange(className: "Note", key: .int(key), operation: .delete)
        }
        // The model's verdict and the object after it.
        let before = store[key]
        var after = before ?? [:]
        after.merge(change.values) { _, new in new }
        let permitted: Bool
        switch change.operation {
        case .delete: permitted = before.map { Model.delete($0, user) } ?? true
        case .update: permitted = before.map { Model.update($0, user) && Model.update(after, user) } ?? true
        case .insert: permitted = before.map { Model.update($0, user) && Model.update(after, user) } ?? Model.create(after, user)
        }
        device.localVersion += 1
        device.connection.send(.upload(transactions: [UploadedTransaction(localVersion: device.localVersion, changes: [change])],
                                       throughLocalVersion: device.localVersion))
        let answer = await device.answer()
        switch answer {
        case .acknowledge(_, let version)?:
            latest = max(latest, version)
            allowed += 1
            if !permitted { mismatches.append("step \(step): \(change) by \(user.sub) applied; the model forbids it") }
        case .error(.forbidden("Note", let refusedKey, _, _))? where refusedKey == "\(key)":
            refused += 1
            if permitted { mismatches.append("step \(step): \(change) by \(user.sub) refused; the model allows it") }
        default:
            untyped += 1
            mismatches.append("step \(step): \(change) answered \(String(describing: answer))")
        }
        if permitted {
            switch change.operation {
            case .delete: store[key] = nil
            case .update: if before != nil { store[key] = after }
            case .insert: store[key] = after
            }
        }
        if mismatches.count > 20 { break }
    }
    report.check("\(operations) random operations by 5 users: every verdict matches the model (\(allowed) applied, \(refused) refused)",
                 mismatches.isEmpty, mismatches.prefix(5).joined(separator: "; "))
    report.check("every refusal is a typed forbidden naming the class and key", untyped == 0, "\(untyped) other answers")

    // The database holds exactly the model's objects: no forbidden write applied.
    let stored = try await serverNotes().compactMapValues { $0 }.filter { entry in
        Int64(entry.key).map { $0 >= base && $0 < base + 60 } ?? false
    }
    let expected = Dictionary(uniqueKeysWithValues: store.map { ("\($0.key)", $0.value) })
    report.check("the database holds the model's objects (0 forbidden writes applied)", stored == expected,
                 "\(stored.count) stored, \(expected.count) expected")

    // Each device, live and caught up anew, holds exactly what its user may read: 0 objects leaked.
    for (user, device) in zip(users, devices) {
        let reachedLatest = await device.catchUp(to: latest) == nil
        let live = device.view.filter { if case .int(let key) = $0.key.key { key >= base && key < base + 60 } else { false } }
        let visible = store.filter { Model.read($0.value, user) }
        let liveKeys = Set(live.keys.compactMap { if case .int(let key) = $0.key { key } else { nil } })
        report.check("\(user.sub)'s live device holds exactly what they may read (\(visible.count) objects)",
                     reachedLatest && liveKeys == Set(visible.keys) && live.allSatisfy { id, values in
                         if case .int(let key) = id.key { visible[key] == values } else { false }
                     }, "live \(liveKeys.sorted()), model \(visible.keys.sorted())")
        let token = try await minter.hs256(.valid(user.sub, role: user.isAdmin ? "admin" : nil, teams: user.teams))
        let fresh = (await catchUp(token)).map(objects(after:))?.filter { if case .int(let key) = $0.key { key >= base && key < base + 60 } else { false } }
        report.check("\(user.sub)'s new device catching up from version 0 holds exactly what they may read",
                     fresh.map { Set($0.keys) } == Set(visible.keys.map { SyncValue.int($0) }), "\(fresh?.count ?? -1) objects")
        report.check("\(user.sub)'s device read only protocol messages", device.unreadable == 0, "\(device.unreadable) unreadable")
    }
}
