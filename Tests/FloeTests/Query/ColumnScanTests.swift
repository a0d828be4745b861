import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Predicates on plain columns run leaf by leaf over the column arrays: every one of the query
/// suite's predicates that qualifies selects exactly what the general evaluator selects, and
/// counts agree with the keys.
@Suite struct ColumnScanTests {
    @Test func columnScansSelectWhatTheEvaluatorSelects() async throws {
        let realm = try await QueryTests.makeRealm(seed: 99)
        let (scanned, problems) = try await realm.read { realm -> (Int, [String]) in
            let context = realm._access.context
            let binding = try context.tableBinding(for: QueryTests.Pup.self)!
            let reader = try context.currentReader()
            var scanned = 0
            var problems: [String] = []
            for (format, arguments, _) in QueryTests.cases {
                let predicate = try PredicateParser.parse(format, arguments: arguments)
                let evaluator = try QueryEvaluator(predicate, binding: binding, reader: reader, bindings: Self.lookup(context))
                let expected = try evaluator.matchingKeys()
                guard let scan = try ColumnScan(predicate, binding: binding, reader: reader) else { continue }
                scanned += 1
                if try scan.matchingKeys() != expected { problems.append("\(format): keys differ") }
                if try scan.count() != expected.count { problems.append("\(format): count differs") }
                if try realm.objects(QueryTests.Pup.self).filter(format, arguments: arguments).count != expected.count { problems.append("\(format): Results.count differs") }
            }
            return (scanned, problems)
        }
        #expect(problems.isEmpty, "\(problems)")
        #expect(scanned >= 20, "most of the suite's predicates read plain columns")
    }

    static func lookup(_ context: ObjectContext) -> (ObjectBase.Type) throws(FloeError) -> TableBinding? {
        { (type) throws(FloeError) in try context.tableBinding(for: type) }
    }

    @Test func predicatesThroughLinksOrCollectionsAreLeftToTheEvaluator() async throws {
        let realm = try await QueryTests.makeRealm()
        let planned = try await realm.read { realm in
            let binding = try realm._access.context.tableBinding(for: QueryTests.Pup.self)!
            let reader = try realm._access.context.currentReader()
            return try ["owner.name == 'Ada'", "ANY tags == 'Rex'", "tags.@count > 1", "age > 3 AND owner.name == 'Bo'"].map { format in
                try ColumnScan(PredicateParser.parse(format, arguments: []), binding: binding, reader: reader) == nil
            }
        }
        #expect(planned == [true, true, true, true])
    }
}

extension ColumnScanTests {
    @Test func bytePrefixesAgreeWithSwiftsHasPrefix() {
        let strings = ["dog1", "dog12", "dog", "", "Dog1", "dog1\u{301}", "\u{212A}elvin", "Kelvin", "a\r\n", "a\r", "e\u{301}x", "ésprit", "dog1é", "😀dog"]
        let prefixes = ["", "dog1", "K", "a\r", "e", "é", "😀", "dog"]
        for string in strings {
            for prefix in prefixes {
                #expect(ColumnScan.hasPrefix(string, prefix) == string.hasPrefix(prefix), "\(string.debugDescription) / \(prefix.debugDescription)")
            }
        }
    }
}
