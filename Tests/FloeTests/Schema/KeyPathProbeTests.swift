import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// The one key-path probe: a query's use names one property of the root, a projection's or
/// observation's follows to-one links and embedded objects; each use keeps its own answer.
@Suite struct KeyPathProbeTests {
    @Test func aQueryNamesOnePropertyOfTheRoot() throws {
        let age = try KeyPathProbe.path(of: \TestDog.age, for: .query).get()
        #expect(age == PropertyPath(components: ["age"], toManyPrefix: nil))
        let list = try KeyPathProbe.path(of: \NestingOwner.nestedList, for: .query).get()
        #expect(list == PropertyPath(components: ["nestedList"], toManyPrefix: 1))
    }

    @Test func aProjectionFollowsLinksAndEmbeddedObjects() throws {
        let deep = try KeyPathProbe.path(of: \NestingOwner.nested?.child?.depth, for: .projection).get()
        #expect(deep.dotted == "nested.child.depth")
        #expect(deep.toManyPrefix == nil)
        let link = try KeyPathProbe.path(of: \ChainLink.next?.next, for: .projection).get()
        #expect(link.dotted == "next.next")
    }

    @Test func eachUseRefusesInItsOwnWords() {
        func reason(_ use: KeyPathUse) -> String? {
            guard case .failure(.invalidKeyPath(let className, _, let reason)) = KeyPathProbe.path(of: \TestDog.description2, for: use) else {
                return nil
            }
            #expect(className == "TestDog")
            return reason
        }
        #expect(reason(.query) == "it reads name, age: a query names one persisted property at a time")
        #expect(reason(.projection) == "it reads name, age: a projected property shows one persisted property")
        guard case .failure(.invalidKeyPath(_, _, let computed)) = KeyPathProbe.path(of: \TestDog.name.count, for: .query) else {
            Issue.record("a count of a name was taken for the name")
            return
        }
        #expect(computed == "it is computed from 'name': query 'name' itself")
        guard case .failure(.invalidKeyPath(_, _, let none)) = KeyPathProbe.path(of: \TestDog.isSelected, for: .projection) else {
            Issue.record("a plain var was taken for a persisted property")
            return
        }
        #expect(none == "it reads no @Persisted property: only persisted properties can be projected or observed")
    }
}
