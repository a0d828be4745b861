import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Values and object graphs as deep or as long as the user makes them: each is stored, or
/// refused with a typed error, with the stack no deeper than for a shallow one — never a
/// crash — and a refused write leaves the realm as it was.
@Suite struct DeepValueTests {
    static func realm(_ types: [ObjectBase.Type]) async throws -> Realm {
        try await inMemoryRealm("deep", objectTypes: types)
    }

    /// How many objects of a class (embedded ones too) the realm's newest commit holds.
    static func count(of className: String, in realm: Realm) throws -> Int {
        let snapshot = try realm.store.snapshot()
        guard let table = try snapshot.tableIfPresent(named: className) else { return 0 }
        return try snapshot.objectCount(in: table)
    }

    /// `["index": 0, "next": ["index": 1, "next": …]]`: `levels + 1` linked objects.
    static func nestedLinks(_ levels: Int) -> [String: Any] {
        var value: [String: Any] = ["index": levels]
        for level in (0..<levels).reversed() { value = ["index": level, "next": value] }
        return value
    }

    /// `[[[…[1]…]]]`: a mixed value nesting `levels` arrays.
    static func nestedArrays(_ levels: Int) -> Any {
        var value: Any = 1
        for _ in 0..<levels { value = [value] }
        return value
    }

    /// `["k": ["k": …1…]]`: a mixed value nesting `levels` dictionaries.
    static func nestedDictionaries(_ levels: Int) -> Any {
        var value: Any = 1
        for _ in 0..<levels { value = ["k": value] }
        return value
    }

    /// An `AnyRealmValue` nesting `levels` lists.
    static func nestedMixed(_ levels: Int) -> AnyRealmValue {
        var value = AnyRealmValue.int(1)
        for _ in 0..<levels { value = .fromArray([value]) }
        return value
    }

    static let tooDeep = FloeError.typeMismatch(table: "ValueHolder", column: "mixed", expected: "a mixed value nesting at most 100 levels of lists and dictionaries",
                                                value: "nesting more than 100 levels")

    /// Nested values that create linked objects are refused past 100 levels, whether Swift
    /// dictionaries or Foundation's, before anything deep inside them is looked at.
    @Test func createRefusesDeeplyNestedObjectValues() async throws {
        let realm = try await Self.realm([ChainLink.self, NestingOwner.self, NestedEmbedded.self])
        let swiftError = await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(ChainLink.self, value: Self.nestedLinks(6_000)) }
        }
        #expect(swiftError == .cyclicValue(className: "ChainLink"))
        let foundationError = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                let value = NSMutableDictionary(dictionary: ["index": 6_000])
                for level in (0..<6_000).reversed() { value.setDictionary(["index": level, "next": value.copy()]) }
                _ = try realm.create(ChainLink.self, value: value)
            }
        }
        #expect(foundationError == .cyclicValue(className: "ChainLink"))
        let embeddedError = await #expect(throws: FloeError.self) {
            try await realm.write { realm in
                var embedded: [String: Any] = ["depth": 6_000]
                for depth in (0..<6_000).reversed() { embedded = ["depth": depth, "child": embedded] }
                _ = try realm.create(NestingOwner.self, value: ["nested": embedded])
            }
        }
        #expect(embeddedError == .cyclicValue(className: "NestedEmbedded"))
        #expect(try Self.count(of: "ChainLink", in: realm) + Self.count(of: "NestedEmbedded", in: realm) == 0)
        // 100 levels are created.
        let created = try await realm.write { realm in
            var link: ChainLink? = try realm.create(ChainLink.self, value: Self.nestedLinks(99))
            var indexes: [Int] = []
            while let current = link {
                indexes.append(current.index)
                link = current.next
            }
            return indexes
        }
        #expect(created == Array(0...99))
    }

    /// Arrays and dictionaries given for a mixed value nest at most 100 levels; deeper is a
    /// typed error found before anything inside is converted.
    @Test func createRefusesDeeplyNestedMixedValues() async throws {
        let realm = try await Self.realm([ValueHolder.self])
        let attempts: [(String, String, @Sendable () -> [String: Any])] = [
            ("arrays", "mixed", { ["mixed": Self.nestedArrays(6_000)] }),
            ("dictionaries", "mixed", { ["mixed": Self.nestedDictionaries(6_000)] }),
            ("one level too deep", "mixed", { ["mixed": Self.nestedArrays(101)] }),
            ("in a list of mixed", "mixedList", { ["mixedList": [1, Self.nestedArrays(6_000)]] }),
            ("in a map of mixed", "mixedMap", { ["mixedMap": ["k": Self.nestedDictionaries(6_000)]] }),
        ]
        for (name, property, value) in attempts {
            let error = await #expect(throws: FloeError.self, "\(name)") {
                try await realm.write { realm in _ = try realm.create(ValueHolder.self, value: value()) }
            }
            #expect(error == .typeMismatch(table: "ValueHolder", column: property, expected: "a mixed value nesting at most 100 levels of lists and dictionaries",
                                           value: "nesting more than 100 levels"), "\(name)")
        }
        #expect(try await realm.read { realm in realm.objects(ValueHolder.self).count } == 0)
        let depth = try await realm.write { realm in
            var value = try realm.create(ValueHolder.self, value: ["mixed": Self.nestedArrays(100)]).mixed
            var depth = 0
            while let list = value.listValue {
                depth += 1
                value = list[0]
            }
            return depth
        }
        #expect(depth == 100)
    }

    /// A deep dictionary given for a plain property is a type mismatch, named without
    /// spelling the dictionary out.
    @Test func aDeepValueForAScalarPropertyIsATypeMismatch() async throws {
        let realm = try await Self.realm([ValueHolder.self])
        let error = await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(ValueHolder.self, value: ["name": Self.nestedLinks(6_000)]) }
        }
        #expect(error == .typeMismatch(table: "ValueHolder", column: "name", expected: "String", value: "a dictionary of 2 entries"))
    }

    /// An `AnyRealmValue` nests at most 100 levels however it is written: assigned, added,
    /// appended to a list of mixed values, set in a map of them, given to `create`, or put
    /// inside a nested list in place. The realm is left as it was each time.
    @Test func anyRealmValueNestsAtMostOneHundredLevelsOnEveryPath() async throws {
        let realm = try await Self.realm([ValueHolder.self])
        try await realm.asyncWrite { realm in
            try realm.create(ValueHolder.self, value: ["name": "kept", "mixed": Self.nestedMixed(99)])
        }
        @Sendable func state(_ realm: borrowing Realm.ReadTransaction) -> String {
            realm.objects(ValueHolder.self).map { "\($0.mixed._floeEncoded.value.nestingDepth) \($0.mixedList.count) \($0.mixedMap.count)" }.joined(separator: "; ")
        }
        let before = try await realm.read { realm in state(realm) }
        #expect(before == "99 0 0")
        let attempts: [(String, String, @Sendable (borrowing Realm.Transaction) throws -> Void)] = [
            ("assign", "mixed", { realm in realm.objects(ValueHolder.self).first!.mixed = Self.nestedMixed(6_000) }),
            ("one level too deep", "mixed", { realm in realm.objects(ValueHolder.self).first!.mixed = Self.nestedMixed(101) }),
            ("add", "mixed", { realm in
                let holder = ValueHolder()
                holder.mixed = Self.nestedMixed(6_000)
                try realm.add(holder)
            }),
            ("list of mixed", "mixedList", { realm in realm.objects(ValueHolder.self).first!.mixedList.append(Self.nestedMixed(6_000)) }),
            ("map of mixed", "mixedMap", { realm in realm.objects(ValueHolder.self).first!.mixedMap["k"] = Self.nestedMixed(6_000) }),
            ("create", "mixed", { realm in _ = try realm.create(ValueHolder.self, value: ["mixed": Self.nestedMixed(6_000)]) }),
            ("in place", "mixed", { realm in
                // 99 levels there, and a list of two more put at the bottom: 101.
                var list = realm.objects(ValueHolder.self).first!.mixed.listValue!
                while let inner = list[0].listValue { list = inner }
                list.append(Self.nestedMixed(2))
            }),
        ]
        for (name, property, attempt) in attempts {
            let error = await #expect(throws: FloeError.self, "\(name)") {
                try await realm.write { realm in try attempt(realm) }
            }
            #expect(error == .typeMismatch(table: "ValueHolder", column: property, expected: "a mixed value nesting at most 100 levels of lists and dictionaries",
                                           value: "nesting more than 100 levels"), "\(name)")
            #expect(try await realm.read { realm in state(realm) } == before, "\(name)")
        }
        try await realm.write { realm in realm.objects(ValueHolder.self).first!.mixed = Self.nestedMixed(100) }
        #expect(try await realm.read { realm in state(realm) } == "100 0 0")
    }

    /// A chain of unmanaged objects as long as the user likes is added whole; so is one whose
    /// end links back to its start.
    @Test func longChainsOfUnmanagedObjectsAreAdded() async throws {
        let realm = try await Self.realm([ChainLink.self])
        let (count, ends) = try await realm.write { realm in
            let head = ChainLink()
            var tail = head
            for index in 1..<100_000 {
                let link = ChainLink()
                link.index = index
                tail.next = link
                tail = link
            }
            try realm.add(head)
            let links = realm.objects(ChainLink.self)
            return (links.count, try links.filter("next == nil").map(\.index))
        }
        #expect(count == 100_000)
        #expect(ends == [99_999])
        let cycle = try await realm.write { realm in
            let head = ChainLink()
            head.index = -1
            var tail = head
            for index in 1..<5_000 {
                let link = ChainLink()
                link.index = -1 - index
                tail.next = link
                tail = link
            }
            tail.next = head
            try realm.add(head)
            return (try realm.objects(ChainLink.self).filter("index < 0").count, tail.next?.index)
        }
        #expect(cycle.0 == 5_000)
        #expect(cycle.1 == -1)
    }

    /// Embedded objects nested thousands deep are added with their owner, described, deleted
    /// when the owner's property is given another one or they leave its list, and deleted
    /// with their owner.
    @Test func deeplyNestedEmbeddedObjectsAreAddedAndDeleted() async throws {
        let realm = try await Self.realm([NestingOwner.self, NestedEmbedded.self])
        @Sendable func nested(_ depth: Int) -> NestedEmbedded {
            let top = NestedEmbedded()
            var bottom = top
            for level in 1..<depth {
                let child = NestedEmbedded()
                child.depth = level
                bottom.child = child
                bottom = child
            }
            return top
        }
        try await realm.write { realm in
            let owner = NestingOwner()
            owner.name = "owner"
            owner.nested = nested(5_000)
            owner.nestedList.append(nested(2_000))
            owner.nestedList.append(nested(2_000))
            try realm.add(owner)
        }
        #expect(try Self.count(of: "NestedEmbedded", in: realm) == 9_000)
        #expect(try realm.store.verify().isValid)
        // Described in full 100 levels down, and by class below.
        let description = try await realm.read { realm in realm.objects(NestingOwner.self).first!.description }
        #expect(description.contains("depth = 98;") && !description.contains("depth = 99;"))
        #expect(description.contains("child = NestedEmbedded {…};"))
        try await realm.write { realm in realm.objects(NestingOwner.self).first!.nested = NestedEmbedded() }
        #expect(try Self.count(of: "NestedEmbedded", in: realm) == 4_001)
        try await realm.write { realm in realm.objects(NestingOwner.self).first!.nestedList.remove(at: 0) }
        #expect(try Self.count(of: "NestedEmbedded", in: realm) == 2_001)
        try await realm.write { realm in try realm.delete(realm.objects(NestingOwner.self).first!) }
        #expect(try Self.count(of: "NestedEmbedded", in: realm) == 0)
        let report = try realm.store.verify()
        #expect(report.isValid, "\(report)")
    }

    /// `Model(value:)` makes the unmanaged objects nested values describe, 100 levels deep
    /// at most (as `create` does); deeper values, and frozen objects that link in a circle,
    /// are refused with a typed error.
    @Test func copiesIntoUnmanagedObjectsNestAtMostOneHundredLevels() async throws {
        #expect(throws: FloeError.cyclicValue(className: "ChainLink")) { _ = try ChainLink(value: Self.nestedLinks(6_000)) }
        #expect(throws: FloeError.cyclicValue(className: "NestedEmbedded")) {
            var embedded: [String: Any] = ["depth": 1]
            for _ in 0..<6_000 { embedded = ["child": embedded] }
            _ = try NestingOwner(value: ["nested": embedded])
        }
        var link: ChainLink? = try ChainLink(value: Self.nestedLinks(99))
        var indexes: [Int] = []
        while let current = link {
            indexes.append(current.index)
            link = current.next
        }
        #expect(indexes == Array(0...99))
        let owner = try NestingOwner(value: ["nestedList": [["depth": 1, "child": ["depth": 2]], ["depth": 3]]])
        #expect(owner.nestedList.map(\.depth) == [1, 3])
        #expect(owner.nestedList[0].child?.depth == 2)
        // Frozen objects that link in a circle: each copy of a link copies its target, without end.
        let realm = try await Self.realm([ChainLink.self])
        try await realm.write { realm in
            let first = ChainLink(), second = ChainLink()
            second.index = 1
            first.next = second
            second.next = first
            try realm.add(first)
        }
        let frozen = try await realm.read { realm in try realm.objects(ChainLink.self).first!.freeze() }
        #expect(throws: FloeError.cyclicValue(className: "ChainLink")) { _ = try ChainLink(value: frozen) }
    }

    /// A `Date` whose interval is NaN or infinite is stored and read back exactly, whichever
    /// way it is written, and described without trapping; given for another type, it is
    /// named in the type mismatch.
    @Test func nonFiniteDatesAreStoredExactly() async throws {
        let realm = try await Self.realm([ValueHolder.self])
        let nan = Date(timeIntervalSinceReferenceDate: .nan)
        let infinity = Date(timeIntervalSinceReferenceDate: .infinity)
        let negativeInfinity = Date(timeIntervalSinceReferenceDate: -.infinity)
        let read = try await realm.write { realm in
            let created = try realm.create(ValueHolder.self, value: ["name": "created", "date": nan, "optionalDate": infinity,
                                                                      "indexedDate": negativeInfinity, "dates": [nan, infinity], "mixed": nan])
            let added = ValueHolder()
            added.name = "added"
            added.date = infinity
            added.indexedDate = nan
            added.mixed = .date(negativeInfinity)
            try realm.add(added)
            let set = try realm.create(ValueHolder.self, value: ["name": "set"])
            set.date = negativeInfinity
            set.optionalDate = nan
            set.indexedDate = infinity
            set.dates.append(nan)
            set.mixedList.append(.date(nan))
            _ = created.description + added.description + set.description
            return realm.objects(ValueHolder.self).map { holder in
                [holder.date, holder.optionalDate, holder.indexedDate, holder.dates.first, holder.mixed.dateValue, holder.mixedList.first?.dateValue]
                    .map { $0.map { $0.timeIntervalSinceReferenceDate.bitPattern } }
            }
        }
        let expected: [[Double?]] = [[.nan, .infinity, -.infinity, .nan, .nan, nil],
                                     [.infinity, nil, .nan, nil, -.infinity, nil],
                                     [-.infinity, .nan, .infinity, .nan, nil, .nan]]
        #expect(read == expected.map { $0.map { $0?.bitPattern } })
        #expect(try await realm.read { realm in try realm.objects(ValueHolder.self).freeze().map(\.date.timeIntervalSinceReferenceDate.bitPattern) }
            == [Double.nan.bitPattern, Double.infinity.bitPattern, (-Double.infinity).bitPattern])
        #expect(try await realm.read { realm in realm.objects(ValueHolder.self).first!.description.contains("nan") })
        let error = await #expect(throws: FloeError.self) {
            try await realm.write { realm in _ = try realm.create(ValueHolder.self, value: ["name": nan]) }
        }
        #expect(error == .typeMismatch(table: "ValueHolder", column: "name", expected: "String", value: "Date(timeIntervalSinceReferenceDate: nan)"))
        #expect(try await realm.read { realm in realm.objects(ValueHolder.self).count } == 3)
    }
}

private extension AnyRealmValue {
    var dateValue: Date? { if case .date(let date) = self { return date }; return nil }
}
