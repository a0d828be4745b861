import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// `@links.Class.property` in string predicates: the objects of `Class` whose `property` links
/// to the queried object, read like a `LinkingObjects` property — checked against Swift.
@Suite struct BacklinkQueryTests {
    final class Walker: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var age = 0
        @Persisted var pups: List<Pup>
        @Persisted var favourite: Pup?
    }

    final class Pup: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted(originProperty: "pups") var walkers: LinkingObjects<Walker>
    }

    static func makeRealm() async throws -> Realm {
        let realm = try await inMemoryRealm("backlinks", objectTypes: [Walker.self, Pup.self])
        try await realm.asyncWrite { realm in
            var random = SeededGenerator(seed: 11)
            let pups = try (0..<30).map { (id: Int) throws -> Pup in try realm.create(Pup.self, value: ["id": id, "name": "pup\(id)"]) }
            for id in 0..<12 {
                let walker = try realm.create(Walker.self, value: ["id": id, "name": ["Ada", "Bo", "Cy"][id % 3], "age": 20 + id])
                for _ in 0..<Int.random(in: 0...5, using: &random) { walker.pups.append(pups.randomElement(using: &random)!) }
                walker.favourite = Bool.random(using: &random) ? pups.randomElement(using: &random) : nil
            }
        }
        return realm
    }

    @Test func linksMatchTheLinkingObjectsAndSwift() async throws {
        let realm = try await Self.makeRealm()
        let cases: [(String, @Sendable (Pup, [Walker], [Walker]) -> Bool)] = [
            ("ANY @links.Walker.pups.name == 'Ada'", { _, walkers, _ in walkers.contains { $0.name == "Ada" } }),
            ("@links.Walker.pups.@count > 1", { _, walkers, _ in walkers.count > 1 }),
            ("@links.Walker.pups.@count == 0", { _, walkers, _ in walkers.isEmpty }),
            ("ALL @links.Walker.pups.age >= 25", { _, walkers, _ in walkers.allSatisfy { $0.age >= 25 } }),
            ("NONE @links.Walker.favourite.name == 'Bo'", { _, _, fans in !fans.contains { $0.name == "Bo" } }),
            ("@links.Walker.favourite.@count >= 1 AND name BEGINSWITH 'pup1'", { pup, _, fans in !fans.isEmpty && pup.name.hasPrefix("pup1") }),
            ("@links.Walker.pups.@max.age > 28", { _, walkers, _ in (walkers.map(\.age).max() ?? .min) > 28 }),
        ]
        let mismatches = try await realm.read { realm in
            var mismatches: [String] = []
            let walkers = Array(realm.objects(Walker.self))
            for (predicate, expected) in cases {
                let found = try realm.objects(Pup.self).filter(predicate).map(\.id)
                let wanted = realm.objects(Pup.self).filter { pup in
                    // A walker holding a pup twice links to it twice, as LinkingObjects reports.
                    let holders = walkers.flatMap { walker in walker.pups.filter { $0.id == pup.id }.map { _ in walker } }
                    return expected(pup, holders, walkers.filter { $0.favourite?.id == pup.id })
                }.map(\.id)
                if found != wanted { mismatches.append("\(predicate): \(found) != \(wanted)") }
                // The declared inverse property answers the same.
                let declared = predicate.replacingOccurrences(of: "@links.Walker.pups", with: "walkers")
                if declared != predicate, try realm.objects(Pup.self).filter(declared).map(\.id) != found {
                    mismatches.append("\(declared) differs from \(predicate)")
                }
            }
            return mismatches
        }
        #expect(mismatches.isEmpty, "\(mismatches)")
    }

    @Test func badLinksAreTypedErrors() async throws {
        let realm = try await Self.makeRealm()
        let cases = [
            ("@links.Nobody.pups.@count > 0", "no model class named 'Nobody'"),
            ("@links.Walker.nope.@count > 0", "Walker has no property 'nope'"),
            ("@links.Walker.name.@count > 0", "'Walker.name' does not link to Pup"),
            ("@links.Walker > 0", "@links names a class and its property"),
        ]
        for (predicate, message) in cases {
            let error = await #expect(throws: FloeError.self, "\(predicate)") {
                try await realm.read { realm in _ = try realm.objects(Pup.self).filter(predicate).count }
            }
            #expect(error?.description.contains(message) == true, "\(predicate): \(String(describing: error))")
            #expect(error?.description.contains("table") == false && error?.description.contains("column") == false)
        }
    }
}
