import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

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

    /// The walk re-points its one projection on a check of three reference-count words (the
    /// projection's, its root's and the root's binding's) once a full check approved them. In
    /// the middle of a long walk (more than four leaves, after hundreds of rows stepped on that
    /// check), a projection or root kept strongly, weakly or unowned, or a list kept from the
    /// root, keeps its own row; so do those kept after a weak reference to the walk's projection
    /// and to its root came and went (their counts then live in side tables, which the words
    /// do not follow).
    @Test func projectionsAndRootsTakenInTheMiddleOfAWalkKeepTheirRows() async throws {
        let realm = try await IterationReuseTests.makeLynxRealm()
        let count = IterationReuseTests.pets
        try await realm.read { realm in
            var views: [(Int, LynxView)] = []
            var roots: [(Int, Lynx)] = []
            var lists: [(Int, List<Int>)] = []
            var unownedViews: [(UnownedView, ObjectIdentifier)] = []
            var unownedRoots: [(UnownedRoot, ObjectIdentifier)] = []
            let boxes = Boxes()
            var weakID: Int?
            var walked: [String] = []
            for view in realm.objects(LynxView.self) {
                walked.append(view.name)
                let id = Int(view.name.dropFirst(4))!
                #expect(!unownedViews.contains { $0.1 == ObjectIdentifier(view) }, "a projection held unowned was re-pointed to \(id)")
                #expect(!unownedRoots.contains { $0.1 == ObjectIdentifier(view.rootObject) }, "a root held unowned was re-pointed to \(id)")
                if let held = boxes.view { #expect(held.name == "lynx\(weakID!)", "a projection held weakly was re-pointed to \(held.name)") }
                if let held = boxes.root { #expect(held.id == weakID!, "a root held weakly was re-pointed to \(held.id)") }
                switch id % 600 {
                case 100: views.append((id, view))
                case 200: roots.append((id, view.rootObject))
                case 300: lists.append((id, view.rootObject.marks))
                case 400: unownedViews.append((UnownedView(view), ObjectIdentifier(view)))
                case 500: unownedRoots.append((UnownedRoot(view.rootObject), ObjectIdentifier(view.rootObject)))
                case 550 where id < 1_000:
                    // Held weakly: the next step must not re-point them.
                    boxes.view = view
                    boxes.root = view.rootObject
                    weakID = id
                case 250, 350:
                    // A weak reference that comes and goes: the projection and root then have side tables.
                    let passing = Boxes()
                    passing.view = view
                    passing.root = view.rootObject
                default: break
                }
            }
            #expect(walked == stride(from: 0, to: count * 2, by: 2).map { "lynx\($0)" })
            #expect(views.map { $0.1.name } == views.map { "lynx\($0.0)" })
            #expect(views.map(\.0) == Array(stride(from: 100, to: count * 2, by: 600)))
            #expect(roots.map { $0.1.id } == roots.map(\.0))
            #expect(roots.map(\.0) == Array(stride(from: 200, to: count * 2, by: 600)))
            for (id, list) in lists { #expect(Array(list) == [id]) }
            #expect(lists.count == 4)
            // Held weakly only, the projection and root went with the step after (the walk made
            // a new projection instead of re-pointing them), and so read no other row.
            #expect(boxes.view == nil && boxes.root == nil)
            withExtendedLifetime((unownedViews, unownedRoots)) {}
        }
    }
}
