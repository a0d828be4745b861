import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Damage in the middle of a file is met lazily, when a node is first read through the object
/// API, where property getters cannot throw. Such reads answer placeholders and the enclosing
/// `read { }` throws the damage; no wrong value ever leaves a read that did not throw.
@Suite struct DamageAtReadTimeTests {
    final class Kennel: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var tags: List<String>
        @Persisted var scores: Map<String, Int>
        @Persisted var buddy: Kennel?
    }

    static let perCommit = 25
    static let commits = 40

    static func expectedSummary(of id: Int) -> String {
        "\(id)|dog\(id)|t\(id % 3),t\(id % 5)|a=\(id)|\(id > 1 ? "\(id - 1)" : "-")"
    }

    static func summary(of dog: Kennel) -> String {
        "\(dog.id)|\(dog.name)|\(dog.tags.joined(separator: ","))|\(dog.scores.map { "\($0.key)=\($0.value)" }.joined(separator: ","))|\(dog.buddy.map { "\($0.id)" } ?? "-")"
    }

    /// A file of 40 commits of 25 objects each. (Awaited, not made in a `static let` that
    /// waits on a semaphore: that blocked a concurrency pool thread while the writes it
    /// waited for needed one.)
    static func makeFixture() async -> [UInt8] {
        let directory = TemporaryDirectory("damage-read")
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Kennel.self], durability: .none))
            for commit in 0..<commits {
                try await realm.asyncWrite { realm in
                    for id in (commit * perCommit + 1)...((commit + 1) * perCommit) {
                        var value: [String: Any] = ["id": id, "name": "dog\(id)", "tags": ["t\(id % 3)", "t\(id % 5)"], "scores": ["a": id]]
                        if id > 1 { value["buddy"] = realm.object(ofType: Kennel.self, forPrimaryKey: id - 1) }
                        try realm.create(Kennel.self, value: value)
                    }
                }
            }
        } catch {
            Issue.record("fixture: \(error)")
        }
        return Array((try? Data(contentsOf: url)) ?? Data())
    }

    enum Outcome: Equatable { case refusedAtOpen, threwAtRead, intact }

    /// 500 damaged files by default; `FLOE_CORRUPTION_TRIALS=10000` for the long opt-in run.
    static let trials = ProcessInfo.processInfo.environment["FLOE_CORRUPTION_TRIALS"].flatMap(Int.init) ?? 500

    @Test func damageFoundByGettersIsThrownByTheEnclosingRead() async throws {
        let bytes = await Self.makeFixture()
        try #require(bytes.count > 10_000)
        let directory = TemporaryDirectory("damage-trials")
        var random = SeededGenerator(seed: 0xDA_4A6E)
        var outcomes: [Outcome: Int] = [:]
        for trial in 0..<Self.trials {
            var damaged = bytes
            let offset = Int.random(in: 4096..<bytes.count, using: &random)
            if trial % 2 == 0 {
                damaged[offset] ^= UInt8(1) << UInt8.random(in: 0..<8, using: &random)
            } else {
                for index in offset..<min(offset + 16, bytes.count) { damaged[index] = UInt8.random(in: 0...255, using: &random) }
            }
            let url = directory.url("trial-\(trial).floe")
            try Data(damaged).write(to: url)
            let outcome = try await Self.readEverything(at: url, readOnly: trial % 4 < 2, frozenFirst: trial % 3 == 0,
                                                        context: "trial \(trial), offset \(offset)")
            outcomes[outcome, default: 0] += 1
        }
        // Damage lands in nodes only reads reach often enough that both outcomes show up.
        print("damage at read time: \(Self.trials) damaged files: \(outcomes)")
        #expect(outcomes[.threwAtRead, default: 0] > 0, "\(outcomes)")
        #expect(outcomes[.intact, default: 0] > 0, "\(outcomes)")
    }

    /// The first summary that is not what was written, if any.
    static func firstWrong(_ summaries: [String]) -> String? {
        summaries.enumerated().first { $0.element != expectedSummary(of: $0.offset + 1) }.map { "#\($0.offset): \($0.element)" }
    }

    static func readEverything(at url: URL, readOnly: Bool, frozenFirst: Bool, context: String) async throws -> Outcome {
        let realm: Realm
        do {
            realm = try await Realm(configuration: Realm.Configuration(fileURL: url, readOnly: readOnly, objectTypes: [Kennel.self]))
        } catch is FloeError {
            return .refusedAtOpen
        }
        if frozenFirst {
            // Frozen objects read from another task have no throwing boundary: what they read
            // is right, or the damage they met is reported by checkIntegrity.
            let frozen = try await realm.read { realm in try realm.freeze() }
            let summaries = await Task.detached {
                frozen.objects(Kennel.self).map { dog in
                    "\(dog.id)|\(dog.name)|\(dog.tags.joined(separator: ","))|\(dog.scores.map { "\($0.key)=\($0.value)" }.joined(separator: ","))|\(dog.buddy.map { "\($0.id)" } ?? "-")"
                }
            }.value
            if let damage = Result(catching: { try frozen.checkIntegrity() }).failure {
                #expect(damage is FloeError, "\(context)")
                #expect(throws: FloeError.self, "\(context)") { try realm.checkIntegrity() }
                return .threwAtRead
            }
            #expect(Self.firstWrong(summaries) == nil, "\(context)")
            return .intact
        }
        do {
            let summaries = try await realm.read { realm in realm.objects(Kennel.self).map(Self.summary(of:)) }
            // What left the read is exactly some committed prefix of the writes.
            #expect(summaries.count % perCommit == 0, "\(context): \(summaries.count) objects")
            #expect(Self.firstWrong(summaries) == nil, "\(context)")
            return .intact
        } catch let error as FloeError {
            switch error {
            case .corruptFile, .io: break
            default: Issue.record("\(context): a damaged read threw \(error)")
            }
            // The realm remembers the damage for code with no throwing boundary.
            #expect(throws: FloeError.self, "\(context)") { try realm.checkIntegrity() }
            return .threwAtRead
        }
    }
}

extension Result {
    var failure: Failure? {
        if case .failure(let error) = self { return error }
        return nil
    }
}
