import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Realm's positional reads and the realm a collection belongs to, on results and lists.
@Suite struct CollectionPositionsTests {
    typealias Pup = QueryTests.Pup
    typealias Owner = QueryTests.Owner

    final class Kennel: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var pups: List<Pup>
    }

    @Test func indexesOfObjectsAndOfFirstMatches() async throws {
        let realm = try await QueryTests.makeRealm(seed: 3)
        try await realm.asyncWrite { realm in
            let kennel = try realm.create(Kennel.self, value: ["id": 1])
            kennel.pups.append(objectsIn: realm.objects(Pup.self).filter { $0.id % 7 == 0 })
        }
        let answers = try await realm.read { realm in
            let sorted = try realm.objects(Pup.self).sorted(byKeyPath: "age")
            let all = Array(sorted)
            let expectedFirst = all.firstIndex { $0.age > 7 && $0.name.hasPrefix("R") }
            let viaString = try sorted.index(matching: "age > %@ AND name BEGINSWITH %@", 7, "R")
            let viaBuilder = try sorted.index(matching: { $0.age > 7 && $0.name.starts(with: "R") })
            let noMatch = try sorted.index(matching: "age > 100")
            let third = sorted.index(of: all[2])
            let picked = sorted.objects(at: IndexSet([0, 2])).map(\.id)
            let kennel = realm.object(ofType: Kennel.self, forPrimaryKey: 1)!
            let pups = Array(kennel.pups)
            let inList = try kennel.pups.index(matching: "age >= 5")
            let inListBuilder = try kennel.pups.index(matching: { $0.age >= 5 })
            let expectedInList = pups.firstIndex { $0.age >= 5 }
            let isMine = sorted.realm != nil && kennel.pups.realm != nil && !sorted.isInvalidated
            return [viaString == expectedFirst, viaBuilder == expectedFirst, noMatch == nil, third == 2,
                    picked == [all[0].id, all[2].id], inList == expectedInList, inListBuilder == expectedInList, isMine]
        }
        #expect(answers == Array(repeating: true, count: 8), "\(answers)")
        // An unmanaged list has no realm.
        #expect(List<Pup>().realm == nil)
    }
}
