import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Frozen results take the same queries as live ones (string predicates, the builder, sorting,
/// distinct), answer at their own version from any task, and never change.
@Suite struct FrozenResultsQueryTests {
    typealias Pup = QueryTests.Pup

    @Test func frozenQueriesMatchLiveOnesAtTheirVersion() async throws {
        let realm = try await QueryTests.makeRealm(seed: 31)
        let predicates = ["age > 5", "name BEGINSWITH[c] 'r' OR age < 3", "owner.name == 'Ada'", "ANY tags == 'b'", "weight == nil"]
        let (frozen, live) = try await realm.read { realm in
            let frozen = try realm.objects(Pup.self).freeze()
            var live: [[Int]] = []
            for predicate in predicates { live.append(try realm.objects(Pup.self).filter(predicate).sorted(byKeyPath: "age").map(\.id)) }
            live.append(try realm.objects(Pup.self).where { $0.age >= 4 && $0.good == true }.sorted(by: \.name, ascending: false).map(\.id))
            live.append(try realm.objects(Pup.self).sorted(byKeyPath: "age").distinct(by: ["age"]).map(\.id))
            return (frozen, live)
        }
        // Written after freezing: the frozen results do not see it.
        try await realm.write { realm in try realm.delete(realm.objects(Pup.self).filter("age > 5")) }
        let fromAnotherTask = try await Task.detached { () throws -> [[Int]] in
            var found: [[Int]] = []
            for predicate in predicates { found.append(try frozen.filter(predicate).sorted(byKeyPath: "age").map(\.id)) }
            found.append(try frozen.where { $0.age >= 4 && $0.good == true }.sorted(by: \.name, ascending: false).map(\.id))
            found.append(try frozen.sorted(byKeyPath: "age").distinct(by: ["age"]).map(\.id))
            return found
        }.value
        #expect(fromAnotherTask == live)
        #expect(!fromAnotherTask[0].isEmpty, "the deleted objects are still in the frozen version")
        #expect(throws: FloeError.self) { _ = try frozen.filter("nope > 1") }
    }
}
