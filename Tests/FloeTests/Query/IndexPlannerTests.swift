import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// The planner answers `==` and `IN` on indexed properties and primary keys from the search
/// index: the answers equal Swift's evaluation of the same predicates (differential, random
/// data and predicates, through updates and deletes), the index is what found them, and it
/// keeps answering after the file is reopened.
@Suite struct IndexPlannerTests {
    final class Badge: Object {
        @Persisted(primaryKey: true) var id = ""
        @Persisted(indexed: true) var code = 0
        @Persisted(indexed: true) var label = ""
        @Persisted(indexed: true) var nickname: String?
        @Persisted var score = 0
    }

    struct Case {
        let format: String
        let arguments: [Any]
        let expected: (Badge) -> Bool
        /// Whether the planner must answer it from an index.
        let indexed: Bool
    }

    static func randomCase(_ random: inout SeededGenerator) -> Case {
        func term() -> Case {
            let code = Int.random(in: 0..<60, using: &random), label = "l\(Int.random(in: 0..<25, using: &random))"
            let codes = (0..<Int.random(in: 0...4, using: &random)).map { _ in Int.random(in: 0..<60, using: &random) }
            let id = "b\(Int.random(in: 0..<900, using: &random))"
            switch Int.random(in: 0..<8, using: &random) {
            case 0: return Case(format: "code == %@", arguments: [code], expected: { $0.code == code }, indexed: true)
            case 1: return Case(format: "code IN %@", arguments: [codes], expected: { codes.contains($0.code) }, indexed: true)
            case 2: return Case(format: "label == %@", arguments: [label], expected: { $0.label == label }, indexed: true)
            case 3: return Case(format: "id == %@", arguments: [id], expected: { $0.id == id }, indexed: true)
            case 4: return Case(format: "nickname == %@", arguments: [label], expected: { $0.nickname == label }, indexed: true)
            case 5: return Case(format: "label ==[c] %@", arguments: [label.uppercased()], expected: { $0.label == label }, indexed: false)
            case 6: return Case(format: "code == %@", arguments: [Double(code)], expected: { $0.code == code }, indexed: false)
            default: return Case(format: "score > %@", arguments: [Int.random(in: 0..<100, using: &random)], expected: { _ in true }, indexed: false)
            }
        }
        var first = term()
        if first.format == "score > %@" {
            let bound = first.arguments[0] as! Int
            first = Case(format: first.format, arguments: first.arguments, expected: { $0.score > bound }, indexed: false)
        }
        switch Int.random(in: 0..<3, using: &random) {
        case 0: return first
        case 1:
            let bound = Int.random(in: 0..<100, using: &random)
            return Case(format: "\(first.format) AND score <= %@", arguments: first.arguments + [bound],
                        expected: { first.expected($0) && $0.score <= bound }, indexed: first.indexed)
        default:
            let second = term()
            guard second.format != "score > %@" else { return first }
            return Case(format: "\(first.format) OR \(second.format)", arguments: first.arguments + second.arguments,
                        expected: { first.expected($0) || second.expected($0) }, indexed: first.indexed && second.indexed)
        }
    }

    static func populate(_ realm: Realm, seed: UInt64) async throws {
        try await realm.asyncWrite { realm in
            var random = SeededGenerator(seed: seed)
            for id in 0..<900 {
                try realm.create(Badge.self, value: ["id": "b\(id)", "code": Int.random(in: 0..<60, using: &random),
                                                     "label": "l\(Int.random(in: 0..<25, using: &random))",
                                                     "nickname": Bool.random(using: &random) ? "l\(Int.random(in: 0..<25, using: &random))" as Any : NSNull(),
                                                     "score": Int.random(in: 0..<100, using: &random)])
            }
        }
        // Updates and deletes keep the indexes in step.
        try await realm.asyncWrite { realm in
            var random = SeededGenerator(seed: seed + 1)
            let badges = Array(realm.objects(Badge.self))
            for badge in badges.shuffled(using: &random).prefix(300) {
                switch Int.random(in: 0..<3, using: &random) {
                case 0: badge.code = Int.random(in: 0..<60, using: &random)
                case 1: badge.label = "l\(Int.random(in: 0..<25, using: &random))"
                default: try realm.delete(badge)
                }
            }
        }
    }

    /// Mismatches between the query and Swift, and cases the planner should have answered
    /// from an index but scanned for.
    static func check(_ realm: Realm, seed: UInt64, cases count: Int) async throws -> [String] {
        try await realm.read { realm -> [String] in
            var random = SeededGenerator(seed: seed)
            let all = realm.objects(Badge.self)
            let objects = Array(all)
            let binding = try realm._access.context.tableBinding(for: Badge.self)!
            let reader = try realm._access.context.currentReader()
            var problems: [String] = []
            for _ in 0..<count {
                let test = randomCase(&random)
                let found = try all.filter(test.format, arguments: test.arguments).map(\.id)
                let wanted = objects.filter(test.expected).map(\.id)
                if found != wanted { problems.append("\(test.format) \(test.arguments): \(found.count) found, \(wanted.count) wanted") }
                let predicate = try PredicateParser.parse(test.format, arguments: test.arguments)
                let candidates = try QueryPlanner.indexCandidates(predicate, binding: binding, reader: reader)
                if test.indexed != (candidates != nil) { problems.append("\(test.format): index used \(candidates != nil), expected \(test.indexed)") }
                if let candidates, candidates.count * 3 > objects.count { problems.append("\(test.format): \(candidates.count) candidates for \(wanted.count)") }
            }
            return problems
        }
    }

    @Test func indexedEqualityAndInMatchScansAndSurviveReopening() async throws {
        let directory = TemporaryDirectory()
        let configuration = Realm.Configuration(fileURL: directory.url(), objectTypes: [Badge.self])
        do {
            let realm = try await Realm(configuration: configuration)
            try await Self.populate(realm, seed: 21)
            let problems = try await Self.check(realm, seed: 1, cases: 400)
            #expect(problems.isEmpty, "\(problems.prefix(10))")
        }
        let reopened = try await Realm(configuration: configuration)
        let problems = try await Self.check(reopened, seed: 2, cases: 400)
        #expect(problems.isEmpty, "\(problems.prefix(10))")
        #expect(try await reopened.read { realm in try realm.objects(Badge.self).filter("code == 5").count }
                == reopened.read { realm in realm.objects(Badge.self).filter { $0.code == 5 }.count })
    }

    @Test func filteredCollectionsUseTheIndexWithinTheirObjects() async throws {
        let realm = try await inMemoryRealm("planner")
        try await Self.populate(realm, seed: 4)
        let (found, wanted) = try await realm.read { realm in
            let some = try realm.objects(Badge.self).filter("score < 50").sorted(byKeyPath: "score")
            let found = try some.filter("label == 'l3' OR code IN {1, 2, 3}").map(\.id)
            let wanted = some.filter { $0.label == "l3" || [1, 2, 3].contains($0.code) }.map(\.id)
            return (found, wanted)
        }
        #expect(found == wanted && !found.isEmpty)
    }
}
