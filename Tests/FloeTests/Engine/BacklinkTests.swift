import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// The engine keeps, for every link column, which objects link to which: checked against a
/// scan of the links through random changes of every kind, and by `verify()`.
@Suite struct BacklinkTests {
    @Test func backlinksFollowEveryKindOfLinkChange() throws {
        let directory = TemporaryDirectory()
        let store = try Store.open(path: directory.file(), options: StoreOptions(durability: .none))
        let targetSpec = TableSpec(name: "Target", columns: [ColumnSpec(name: "n", type: .int)])
        let originSpec = TableSpec(name: "Origin", columns: [
            ColumnSpec(name: "one", type: .link, linkTarget: "Target"),
            ColumnSpec(name: "many", type: .link, collection: .list, linkTarget: "Target"),
            ColumnSpec(name: "distinct", type: .link, collection: .set, linkTarget: "Target"),
            ColumnSpec(name: "named", type: .link, isNullable: true, collection: .map, linkTarget: "Target"),
        ])
        do {
            let transaction = try store.beginWrite()
            let targets = try transaction.createTable(targetSpec)
            try transaction.createTable(originSpec)
            for n in 0..<20 { try transaction.insertObject(into: targets, values: [.int(Int64(n))]) }
            try transaction.commit()
        }
        var random = SeededGenerator(seed: 11)
        for _ in 0..<25 {
            let transaction = try store.beginWrite()
            let origins = try transaction.table(named: "Origin")
            let targets = try transaction.table(named: "Target")
            for _ in 0..<30 {
                let originKeys = try transaction.objectKeys(in: origins)
                let targetKeys = try transaction.objectKeys(in: targets)
                guard let target = targetKeys.randomElement(using: &random) else { break }
                switch Int.random(in: 0..<9, using: &random) {
                case 0, 1: try transaction.insertObject(into: origins, values: [.link(target), .null, .null, .null])
                case 2: if let origin = originKeys.randomElement(using: &random) { try transaction.setValue(Bool.random(using: &random) ? .null : .link(target), in: origins, key: origin, column: 0) }
                case 3:
                    if let origin = originKeys.randomElement(using: &random) {
                        if Bool.random(using: &random) {
                            try transaction.listAppend(.link(target), in: origins, key: origin, column: 1)
                        } else {
                            try transaction.listAppend(contentsOf: [.link(target), .link(targetKeys[0]), .link(target)], in: origins, key: origin, column: 1)
                        }
                    }
                case 4:
                    if let origin = originKeys.randomElement(using: &random), try transaction.collectionCount(in: origins, key: origin, column: 1) > 0 {
                        if Bool.random(using: &random) {
                            try transaction.collectionRemove(at: 0, in: origins, key: origin, column: 1)
                        } else {
                            try transaction.listSet(.link(target), at: 0, in: origins, key: origin, column: 1)
                        }
                    }
                case 5: if let origin = originKeys.randomElement(using: &random) { try transaction.setInsert(.link(target), in: origins, key: origin, column: 2) }
                case 6: if let origin = originKeys.randomElement(using: &random) { try transaction.mapSet(.link(target), forKey: "k\(target % 3)", in: origins, key: origin, column: 3) }
                case 7: if let origin = originKeys.randomElement(using: &random) { try transaction.deleteObject(from: origins, key: origin) }
                default: if let origin = originKeys.randomElement(using: &random) { try transaction.collectionRemoveAll(in: origins, key: origin, column: Int.random(in: 1...3, using: &random)) }
                }
            }
            // The backlinks agree with a scan of the links.
            for column in 0..<4 {
                for target in try transaction.objectKeys(in: targets) {
                    var expected: [Int64] = []
                    for origin in try transaction.objectKeys(in: origins) {
                        let values: [Value]
                        switch column {
                        case 0: values = [try transaction.value(in: origins, key: origin, column: 0)]
                        case 3: values = try transaction.mapEntries(in: origins, key: origin, column: 3).map(\.value)
                        default: values = try transaction.collectionElements(in: origins, key: origin, column: column)
                        }
                        expected += values.filter { $0 == .link(target) }.map { _ in origin }
                    }
                    #expect(try transaction.linkingObjects(in: origins, column: column, to: target) == expected.sorted(), "column \(column), target \(target)")
                }
            }
            try transaction.commit()
            let report = try store.verify()
            #expect(report.isValid, "\(report)")
        }
        store.close()
    }
}
