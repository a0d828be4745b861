import Foundation
import FloeSync

// floe-sync-attack: attacks on a floe-sync-server with authentication and rules, for the opt-in
// Sync/Scripts/sync-attack.sh. Each check prints ✔ or ✘; the last line counts them.
//
//   floe-sync-attack setup --dir D              writes D/schema.json, D/rules.json, D/jwks.json
//                                               (the keys in D made by the script with openssl)
//   floe-sync-attack jwks --dir D --rsa-public F --kid K   prints a JWKS with another RSA key
//   floe-sync-attack token --dir D --sub S [--role R] [--seconds N]
//                                               prints an HS256 token (for the end-to-end run)
//   floe-sync-attack run --dir D --port P       the authentication, rules and limits attacks
//   floe-sync-attack flood --dir D --port P     a flood of messages (against a low rate limit)
//   floe-sync-attack rotated --dir D --port P   after a key rotation (SIGHUP): the new key in, the old out
//   floe-sync-attack model --dir D --port P --operations N --seed S
//                                               random operations by 5 users against a model
//   floe-sync-attack bench-auth --dir D --port P --connections N --mode open|rules
//                                               the time of N upgrades (with HS256, ES256 and
//                                               RS256 tokens in mode rules, without in mode open)
//   floe-sync-attack fuzz --dir D --port P --connections N --seed S
//                                               random messages, each on its own connection

func argument(_ name: String) -> String? {
    let arguments = CommandLine.arguments
    guard let index = arguments.firstIndex(of: name), index + 1 < arguments.count else { return nil }
    return arguments[index + 1]
}

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("floe-sync-attack: \(message)\n".utf8))
    exit(2)
}

/// The class the attacks write: owned by a user, maybe shared with a team.
let attackSchema = SyncSchema(version: 1, classes: [
    SyncClass(name: "Note", primaryKey: "id", properties: [
        SyncProperty(name: "id", kind: .int),
        SyncProperty(name: "ownerId", kind: .string),
        SyncProperty(name: "teamId", kind: .string, isOptional: true),
        SyncProperty(name: "title", kind: .string),
    ]),
])

let attackRules = """
    {"Note": {
        "read": "ownerId == $jwt.sub OR $jwt.role == 'admin' OR teamId IN $jwt.teams",
        "create": "ownerId == $jwt.sub",
        "update": "ownerId == $jwt.sub OR $jwt.role == 'admin'",
        "delete": "ownerId == $jwt.sub"
    }}
    """

/// Tallies checks.
final class Report: @unchecked Sendable {
    // @unchecked: used by one task at a time (the command's).
    var passed = 0
    var failed = 0

    func check(_ name: String, _ ok: Bool, _ detail: @autoclosure () -> String = "") {
        if ok {
            passed += 1
            print("✔ \(name)")
        } else {
            failed += 1
            print("✘ \(name): \(detail())")
        }
        fflush(nil)
    }

    func finish() -> Never {
        print("attacks: \(passed) passed, \(failed) failed")
        exit(failed == 0 ? 0 : 1)
    }
}

guard CommandLine.arguments.count > 1 else { fail("a command: setup, jwks, run, rotated, model, fuzz") }
let command = CommandLine.arguments[1]
let directory = argument("--dir") ?? "."
let port = Int(argument("--port") ?? "0") ?? 0
let url = "ws://127.0.0.1:\(port)/sync"

switch command {
case "setup":
    try String(decoding: JSONEncoder().encode(attackSchema), as: UTF8.self).write(toFile: "\(directory)/schema.json", atomically: true, encoding: .utf8)
    try attackRules.write(toFile: "\(directory)/rules.json", atomically: true, encoding: .utf8)
    try Minter.jwks(directory: directory).write(toFile: "\(directory)/jwks.json", atomically: true, encoding: .utf8)
case "jwks":
    guard let file = argument("--rsa-public"), let kid = argument("--kid") else { fail("jwks needs --rsa-public and --kid") }
    print(try Minter.jwks(directory: directory, rsaPublicFile: file, rsaKid: kid))
case "token":
    guard let sub = argument("--sub") else { fail("token needs --sub") }
    var claims = Claims.valid(sub, role: argument("--role"))
    claims.exp = Int(Date().timeIntervalSince1970) + (Int(argument("--seconds") ?? "3600") ?? 3600)
    print(try await Minter(directory: directory).hs256(claims))
case "run":
    let report = Report()
    let minter = try Minter(directory: directory)
    try await authenticationAttacks(minter, report)
    try await ruleAttacks(minter, report)
    try await limitAttacks(minter, report)
    report.finish()
case "flood":
    let report = Report()
    try await floodAttack(try Minter(directory: directory), report)
    report.finish()
case "rotated":
    let report = Report()
    let minter = try Minter(directory: directory)
    let newKey = try String(contentsOfFile: "\(directory)/rs256-new.pem", encoding: .utf8)
    let fresh = try await upgradeAttempt(host: "127.0.0.1", port: port, path: "/sync",
                                         headers: [("Authorization", "Bearer " + (try await minter.rs256(.valid("ann"), kid: "rs2", pem: newKey)))])
    report.check("after SIGHUP, a token signed with the new key is accepted", fresh.status == 101, "HTTP \(fresh.status) \(fresh.body)")
    let old = try await upgradeAttempt(host: "127.0.0.1", port: port, path: "/sync",
                                       headers: [("Authorization", "Bearer " + (try await minter.rs256(.valid("ann"))))])
    report.check("after SIGHUP, a token signed with the removed key is refused", old.status == 401, "HTTP \(old.status) \(old.body)")
    report.finish()
case "model":
    let report = Report()
    try await modelRun(try Minter(directory: directory), report, operations: Int(argument("--operations") ?? "10000") ?? 10_000,
                       seed: UInt64(argument("--seed") ?? "1") ?? 1)
    report.finish()
case "bench-auth":
    let minter = try Minter(directory: directory)
    let count = Int(argument("--connections") ?? "500") ?? 500
    var kinds: [(String, String?)] = [("no token", nil)]
    if argument("--mode") == "rules" {
        kinds = [("HS256", try await minter.hs256(.valid("bench"))), ("ES256", try await minter.es256(.valid("bench"))),
                 ("RS256", try await minter.rs256(.valid("bench")))]
    }
    for (name, token) in kinds {
        var times: [Double] = []
        let clock = ContinuousClock()
        for index in 0..<(count + 20) {
            let started = clock.now
            let answer = try await upgradeAttempt(host: "127.0.0.1", port: port, path: "/sync", headers: token.map { [("Authorization", "Bearer \($0)")] } ?? [])
            let elapsed = clock.now - started
            guard answer.status == 101 else { fail("the upgrade got HTTP \(answer.status): \(answer.body)") }
            if index >= 20 { times.append(Double(elapsed.components.seconds) * 1e6 + Double(elapsed.components.attoseconds) / 1e12) }
        }
        times.sort()
        print("connect + upgrade, \(name): \(times.count) connections, " + String(format: "p50 %.0f µs, p99 %.0f µs", times[times.count / 2], times[times.count * 99 / 100]))
    }
case "fuzz":
    let report = Report()
    try await fuzzRun(try Minter(directory: directory), report, connections: Int(argument("--connections") ?? "300") ?? 300,
                      seed: UInt64(argument("--seed") ?? "1") ?? 1)
    report.finish()
default:
    fail("unknown command '\(command)'")
}
