import Foundation
import Testing
@testable import Floe

/// Results iteration re-points one object per row when nothing holds it; a collection taken
/// from that object holds the object's binding (not the object), so it must keep the walk
/// from re-pointing them: each kept list shows its own object's elements.
@Suite struct IterationKeptListTests {
    @Test func listsKeptDuringAWalkStayWithTheirObjects() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let marks = try await realm.read { realm in
            var lists: [List<Int>] = []
            for lynx in realm.objects(LookupReuseTests.Lynx.self) { lists.append(lynx.marks) }
            return lists.map { Array($0) }
        }
        #expect(marks == (0..<10).map { [$0, $0 * 10] })
    }
}
