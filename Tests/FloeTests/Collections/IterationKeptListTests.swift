import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Results iteration re-points one object per row when nothing holds it; a collection taken
/// from that object holds the object's binding (not the object), so it must keep the walk
/// from re-pointing them: each kept list shows its own object's elements. The same holds for
/// the object a to-one link read answers.
@Suite struct IterationKeptListTests {
    final class Den: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var lynx: LookupReuseTests.Lynx?
    }

    /// The lynxes, and ten dens each linking to the lynx whose key is twice its own.
    private func makeRealmWithDens() async throws -> Realm {
        let realm = try await LookupReuseTests.makeRealm()
        try await realm.write { realm in
            for id in 0..<10 {
                let den = Den()
                den.id = id
                den.lynx = realm.object(ofType: LookupReuseTests.Lynx.self, forPrimaryKey: id * 2)
                try realm.add(den)
            }
        }
        return realm
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
        let realm = try await makeRealmWithDens()
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

    /// A weak reference does not keep an object alive, but it sees the object: the walk must
    /// not re-point an object a weak reference still names.
    final class WeakBox: @unchecked Sendable {
        weak var lynx: LookupReuseTests.Lynx?
    }

    @Test func objectsHeldWeaklyDuringAWalkKeepTheirRows() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let seen = try await realm.read { realm in
            let box = WeakBox()
            var seen: [Int?] = []
            for lynx in realm.objects(LookupReuseTests.Lynx.self) {
                if lynx.id == 0 { box.lynx = lynx }
                // The first object is gone once the walk lets it go, or it is still the first.
                seen.append(box.lynx?.id)
            }
            return seen
        }
        #expect(seen.allSatisfy { $0 == nil || $0 == 0 }, "a weakly held object was re-pointed: \(seen)")
    }

    /// Unowned references keep an object's memory (not the object) until they go: while one
    /// lives, no other object takes its address, so identities compare safely.
    final class UnownedLynx {
        unowned let lynx: LookupReuseTests.Lynx
        init(_ lynx: LookupReuseTests.Lynx) { self.lynx = lynx }
    }

    @Test func objectsHeldUnownedDuringAWalkAreNotReused() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let (reused, ids) = try await realm.read { realm in
            var kept: UnownedLynx?
            var first: ObjectIdentifier?
            var reused = false
            var ids: [Int] = []
            for lynx in realm.objects(LookupReuseTests.Lynx.self) {
                if let first { reused = reused || ObjectIdentifier(lynx) == first }
                if kept == nil {
                    kept = UnownedLynx(lynx)
                    first = ObjectIdentifier(lynx)
                }
                ids.append(lynx.id)
            }
            withExtendedLifetime(kept) {}
            return (reused, ids)
        }
        #expect(!reused, "an object held unowned was re-pointed at another row")
        #expect(ids == ids.sorted() && Set(ids).count == ids.count && !ids.isEmpty)
    }

    @Test func linkTargetsHeldWeaklyKeepTheirRows() async throws {
        let realm = try await makeRealmWithDens()
        let ids = try await realm.read { realm in
            let box = WeakBox()
            var kept: LookupReuseTests.Lynx?
            for den in realm.objects(Den.self) {
                if den.id == 0 { kept = den.lynx; box.lynx = kept; kept = nil }
                // Nothing holds the first target strongly any more, but the walk's own link
                // cache does; the weak reference must keep naming the first target.
                _ = den.lynx?.name
                if let still = box.lynx { #expect(still.id == 0) }
            }
            return box.lynx?.id
        }
        #expect(ids == nil || ids == 0)
    }

    @Test func projectionRootsHeldWeaklyKeepTheirRows() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let seen = try await realm.read { realm in
            let box = WeakBox()
            var seen: [Int?] = []
            for view in realm.objects(LynxView.self) {
                if view.name == "lynx0" || box.lynx == nil && seen.isEmpty { box.lynx = view.rootObject }
                seen.append(box.lynx?.id)
            }
            return seen
        }
        #expect(seen.allSatisfy { $0 == nil || $0 == 0 }, "a weakly held root was re-pointed: \(seen)")
    }
}
