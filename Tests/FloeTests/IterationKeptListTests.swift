import Foundation
import Testing
@testable import Floe

/// Results iteration re-points one object per row when nothing holds it; a collection taken
/// from that object holds the object's binding (not the object), so it must keep the walk
/// from re-pointing them: each kept list shows its own object's elements. The same holds for
/// the object a to-one link read answers.
@Suite struct IterationKeptListTests {
    final class Den: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var lynx: LookupReuseTests.Lynx?
    }

    @Test func listsKeptDuringAWalkStayWithTheirObjects() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let marks = try await realm.read { realm in
            var lists: [List<Int>] = []
            for lynx in realm.objects(LookupReuseTests.Lynx.self) { lists.append(lynx.marks) }
            return lists.map { Array($0) }
        }
        #expect(marks == (0..<10).map { [$0, $0 * 10] })
    }

    @Test func listsKeptFromLinkTargetsStayWithTheirTargets() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        try await realm.write { realm in
            for id in 0..<10 {
                let den = Den()
                den.id = id
                den.lynx = realm.object(ofType: LookupReuseTests.Lynx.self, forPrimaryKey: id * 2)
                try realm.add(den)
            }
        }
        let marks = try await realm.read { realm in
            var lists: [List<Int>] = []
            for den in realm.objects(Den.self) { lists.append(den.lynx!.marks) }
            return lists.map { Array($0) }
        }
        #expect(marks == (0..<10).map { [$0, $0 * 10] })
    }

    final class LynxView: Projection<LookupReuseTests.Lynx> {
        @Projected(\LookupReuseTests.Lynx.name) var name
    }

    @Test func listsKeptFromProjectionRootsStayWithTheirRoots() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let marks = try await realm.read { realm in
            var lists: [List<Int>] = []
            for view in realm.objects(LynxView.self) { lists.append(view.rootObject.marks) }
            return lists.map { Array($0) }
        }
        #expect(marks == (0..<10).map { [$0, $0 * 10] })
    }
}
