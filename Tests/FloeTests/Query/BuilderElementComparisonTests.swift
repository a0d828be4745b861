import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Realm's builder forms that compare a collection of values with one value (any element
/// matches) and order mixed values, each against the string predicate it stands for.
@Suite struct BuilderElementComparisonTests {
    final class Player: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var scores: List<Int>
        @Persisted var tags: MutableSet<String>
        @Persisted var prices: Map<String, Double>
        @Persisted var value: AnyRealmValue
    }

    static func realm() async throws -> Realm {
        let realm = try await inMemoryRealm("builder-elements", objectTypes: [Player.self])
        try await realm.write { realm in
            let values: [AnyRealmValue] = [.int(1), .double(2.5), .string("x"), .decimal128("0.5"), .none]
            for id in 0..<5 {
                let player = try realm.create(Player.self, value: ["id": id, "scores": Array(stride(from: 0, through: id * 500, by: 250)),
                                                                  "tags": id % 2 == 0 ? ["blue"] : ["red", "green"], "value": values[id]])
                player.prices["a"] = Double(id) * 10
            }
        }
        return realm
    }

    func both(_ realm: Realm, _ format: String, _ build: @escaping @Sendable (Query<Player>) -> Query<Bool>) async throws -> [Int] {
        let (built, parsed) = try await realm.read { realm in
            (try realm.objects(Player.self).where(build).map(\.id), try realm.objects(Player.self).filter(format).map(\.id))
        }
        #expect(built == parsed, "\(format)")
        return built
    }

    @Test func listsSetsAndMapsMatchAnyElement() async throws {
        let realm = try await Self.realm()
        #expect(try await both(realm, "ANY scores > 1000") { $0.scores > 1000 } == [3, 4])
        #expect(try await both(realm, "ANY scores >= 1000") { $0.scores >= 1000 } == [2, 3, 4])
        #expect(try await both(realm, "ANY scores < 1") { $0.scores < 1 } == [0, 1, 2, 3, 4])
        #expect(try await both(realm, "ANY scores <= 0") { $0.scores <= 0 } == [0, 1, 2, 3, 4])
        #expect(try await both(realm, "ANY scores == 750") { $0.scores == 750 } == [2, 3, 4])
        #expect(try await both(realm, "ANY scores != 0") { $0.scores != 0 } == [1, 2, 3, 4])
        #expect(try await both(realm, "ANY tags == 'blue'") { $0.tags == "blue" } == [0, 2, 4])
        #expect(try await both(realm, "ANY tags != 'red'") { $0.tags != "red" } == [0, 1, 2, 3, 4])
        #expect(try await both(realm, "ANY prices.@values > 15") { $0.prices > 15 } == [2, 3, 4])
        #expect(try await both(realm, "ANY prices.@values == 20") { $0.prices == 20 } == [2])
    }

    @Test func mixedValuesOrderByValue() async throws {
        let realm = try await Self.realm()
        #expect(try await both(realm, "value > 1") { $0.value > .int(1) } == [1])
        #expect(try await both(realm, "value >= 1") { $0.value >= .double(1) } == [0, 1])
        #expect(try await both(realm, "value < 1") { $0.value < .decimal128(1) } == [3])
        #expect(try await both(realm, "value <= 'x'") { $0.value <= .string("x") } == [2])
    }
}
