import Foundation
import FloeSync

/// Random messages, each on a connection of its own: mutations of valid messages, random JSON,
/// random bytes. Every answer must be a protocol message (a typed error when refused), and the
/// server must stay up and keep serving.
func fuzzRun(_ minter: Minter, _ report: Report, connections: Int, seed: UInt64) async throws {
    var random = SplitMix(state: seed)
    let token = try await minter.hs256(.valid("fuzzer-\(seed)"))
    let encoder = JSONEncoder()
    let valid: [String] = try [
        ClientMessage.hello(clientID: "fuzz", protocolVersion: syncProtocolVersion, schemaVersion: 1, serverVersion: 0),
        .upload(transactions: [UploadedTransaction(localVersion: 1, changes: [note(900_000_001, owner: "fuzzer-\(seed)")])], throughLocalVersion: 1),
        .upload(transactions: [UploadedTransaction(localVersion: 2, changes: [update(900_000_001, ["title": .list([.int(1), .map(["a": .null])])])])], throughLocalVersion: 2),
        .refetch(objects: [SyncObjectID(className: "Note", key: .int(900_000_001)), SyncObjectID(className: "Note", key: .string("x"))]),
    ].map { String(decoding: try encoder.encode($0), as: UTF8.self) }

    func randomJSON(depth: Int) -> String {
        switch Int.random(in: 0..<(depth > 6 ? 4 : 7), using: &random) {
        case 0: return "\(Int64.random(in: .min ... .max, using: &random))"
        case 1: return ["1e999", "-0", "0.5", "NaN", "null", "true", "\"\\u0000\"", "\"\\ud800\""].randomElement(using: &random)!
        case 2: return "\"" + String((0..<Int.random(in: 0..<20, using: &random)).map { _ in Character(UnicodeScalar(UInt8.random(in: 32...126, using: &random))) }).replacingOccurrences(of: "\"", with: "").replacingOccurrences(of: "\\", with: "") + "\""
        case 3: return ["\"hello\"", "\"upload\"", "\"int\"", "\"link\"", "\"transactions\""].randomElement(using: &random)!
        case 4, 5:
            let keys = ["hello", "upload", "refetch", "objects", "clientID", "protocolVersion", "schemaVersion", "serverVersion", "transactions", "throughLocalVersion",
                        "localVersion", "changes", "className", "key", "operation", "values", "int", "string", "link", "list", "map", "class"]
            let fields = (0..<Int.random(in: 0..<4, using: &random)).map { _ in "\"\(keys.randomElement(using: &random)!)\":\(randomJSON(depth: depth + 1))" }
            return "{" + fields.joined(separator: ",") + "}"
        default:
            return "[" + (0..<Int.random(in: 0..<4, using: &random)).map { _ in randomJSON(depth: depth + 1) }.joined(separator: ",") + "]"
        }
    }

    func mutate(_ text: String) -> String {
        var scalars = Array(text.unicodeScalars)
        for _ in 0..<Int.random(in: 1...6, using: &random) where !scalars.isEmpty {
            let index = Int.random(in: 0..<scalars.count, using: &random)
            switch Int.random(in: 0..<4, using: &random) {
            case 0: scalars.remove(at: index)
            case 1: scalars.insert(["{", "}", "[", "]", "\"", ",", ":", "0", "-", "e"].randomElement(using: &random)!, at: index)
            case 2: scalars[index] = UnicodeScalar(UInt8.random(in: 32...126, using: &random))
            default: scalars = Array(scalars.prefix(index))
            }
        }
        var result = ""
        result.unicodeScalars.append(contentsOf: scalars)
        return result
    }

    var unreadable = 0, answered = 0, silent = 0
    var kinds: [String: Int] = [:]
    for index in 0..<connections {
        let connection = RawConnection(url: url, token: token)
        let sayHello = Bool.random(using: &random)
        if sayHello { connection.send(text: valid[0].replacingOccurrences(of: "\"fuzz\"", with: "\"fuzz-\(seed)-\(index)\"")) }
        switch Int.random(in: 0..<4, using: &random) {
        case 0: connection.send(text: mutate(valid.randomElement(using: &random)!))
        case 1: connection.send(text: randomJSON(depth: 0))
        case 2: connection.send(text: String(decoding: (0..<Int.random(in: 1..<200, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }, as: UTF8.self))
        default: connection.send(text: String(repeating: "[", count: Int.random(in: 100..<5000, using: &random)))
        }
        // Read what the server says until it closes or goes quiet.
        while let text = await connection.receiveText(within: 0.5) {
            answered += 1
            if let message = try? JSONDecoder().decode(ServerMessage.self, from: Data(text.utf8)) {
                if case .error(let error) = message { kinds["\(error)".split(separator: ":").first.map(String.init) ?? "", default: 0] += 1 }
            } else {
                unreadable += 1
            }
        }
        if connection.close == nil { silent += 1 }
        connection.finish()
    }
    report.check("\(connections) random messages: every answer is a protocol message (\(answered) answers)", unreadable == 0, "\(unreadable) unreadable")
    _ = silent
    let health = try await httpGet(port: port, path: "/health")
    report.check("the server is up after the fuzzing", health.status == 200, "HTTP \(health.status)")
    let after = await session(token)
    report.check("a well-formed session works after the fuzzing", after != nil)
    after?.0.finish()
    print("refusals seen: \(kinds.sorted { $0.key < $1.key }.map { "\($0.key) ×\($0.value)" }.joined(separator: ", "))")
}
