import Foundation
import Testing
@testable import Floe

/// Iterating projections re-points the previous projection's root at the next row when nothing
/// else can see it. Anything that holds the projection or its root — strongly, weakly or
/// unowned — must keep seeing its own row: the walk then makes a new projection instead.
@Suite struct ProjectionIterationHoldTests {
    typealias Lynx = LookupReuseTests.Lynx
    typealias LynxView = IterationKeptListTests.LynxView

    final class Boxes: @unchecked Sendable {
        weak var view: LynxView?
        weak var root: Lynx?
    }

    /// Unowned references keep an object's memory (not the object) until they go: while one
    /// lives, no other object takes its address, so identities compare safely.
    final class UnownedView {
        unowned let view: LynxView
        init(_ view: LynxView) { self.view = view }
    }

    final class UnownedRoot {
        unowned let root: Lynx
        init(_ root: Lynx) { self.root = root }
    }

    @Test func aWalkWithNothingKeptReusesOneProjection() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let (names, distinct) = try await realm.read { realm in
            var names: [String] = []
            var identities = Set<ObjectIdentifier>()
            for view in realm.objects(LynxView.self) {
                names.append(view.name)
                identities.insert(ObjectIdentifier(view))
            }
            return (names, identities.count)
        }
        #expect(names == (0..<10).map { "lynx\($0 * 2)" })
        // The reuse this suite guards is real: without anything kept, one projection serves the walk.
        #expect(distinct == 1)
    }

    @Test func aProjectionHeldWeaklyKeepsItsRow() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let seen = try await realm.read { realm in
            let boxes = Boxes()
            var seen: [String?] = []
            for view in realm.objects(LynxView.self) {
                if boxes.view == nil && seen.isEmpty { boxes.view = view }
                seen.append(boxes.view?.name)
            }
            return seen
        }
        #expect(seen.allSatisfy { $0 == nil || $0 == "lynx0" }, "a weakly held projection was re-pointed: \(seen)")
    }

    @Test func aProjectionHeldUnownedIsNotReused() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let (reused, names) = try await realm.read { realm in
            var kept: UnownedView?
            var first: ObjectIdentifier?
            var reused = false
            var names: [String] = []
            for view in realm.objects(LynxView.self) {
                if let first { reused = reused || ObjectIdentifier(view) == first }
                if kept == nil {
                    kept = UnownedView(view)
                    first = ObjectIdentifier(view)
                }
                names.append(view.name)
            }
            withExtendedLifetime(kept) {}
            return (reused, names)
        }
        #expect(!reused, "a projection held unowned was re-pointed at another row")
        #expect(names == (0..<10).map { "lynx\($0 * 2)" })
    }

    @Test func aRootHeldWeaklyOrUnownedIsNotReused() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let (weakSeen, reused) = try await realm.read { realm in
            let boxes = Boxes()
            var weakSeen: [Int?] = []
            for view in realm.objects(LynxView.self) {
                if boxes.root == nil && weakSeen.isEmpty { boxes.root = view.rootObject }
                weakSeen.append(boxes.root?.id)
            }
            var kept: UnownedRoot?
            var first: ObjectIdentifier?
            var reused = false
            for view in realm.objects(LynxView.self) {
                if let first { reused = reused || ObjectIdentifier(view.rootObject) == first }
                if kept == nil {
                    kept = UnownedRoot(view.rootObject)
                    first = ObjectIdentifier(view.rootObject)
                }
            }
            withExtendedLifetime(kept) {}
            return (weakSeen, reused)
        }
        #expect(weakSeen.allSatisfy { $0 == nil || $0 == 0 }, "a weakly held root was re-pointed: \(weakSeen)")
        #expect(!reused, "a root held unowned was re-pointed at another row")
    }

    @Test func aProjectionOrRootKeptStronglyKeepsItsRow() async throws {
        let realm = try await LookupReuseTests.makeRealm()
        let (views, roots) = try await realm.read { realm in
            var views: [LynxView] = []
            for view in realm.objects(LynxView.self) { views.append(view) }
            var roots: [Lynx] = []
            for view in realm.objects(LynxView.self) { roots.append(view.rootObject) }
            return (views.map(\.name), roots.map(\.name))
        }
        #expect(views == (0..<10).map { "lynx\($0 * 2)" })
        #expect(roots == views)
    }
}
