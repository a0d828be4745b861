import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// A column changed in one row is written as that row's change on top of the column it was
/// copied from (`ColumnNode+Changes.swift`): reading it back from the file, after reopening,
/// after compaction and through history, gives exactly what was written; stacks stay bounded;
/// damage under a change is reported, never trapped on.
@Suite struct ColumnChangeTests {
    typealias Model = RandomizedModelTests.Model

    static func openStore(_ path: String) throws -> Store {
        try Store.open(path: path, options: StoreOptions(durability: .none))
    }

    /// The written column node of `column` in the leaf holding `key`, read afresh from the file.
    static func columnNode(in store: Store, key: Int64, column: Int) throws -> (node: ColumnNode, offset: UInt64) {
        let snapshot = try store.snapshot()
        let table = try snapshot.group.tables[0].load()
        let (leaf, _) = try #require(try ClusterTree.find(key, in: table.root))
        let ref = leaf.columns[column]
        return (try ref.load(), ref.offset)
    }

    @Test(arguments: [11, 12, 13] as [UInt64])
    func oneRowCommitsReadBackAfterReopenAndCompaction(seed: UInt64) throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var random = SeededGenerator(seed: seed)
        var store = try Self.openStore(path)
        var model: Model = [:]
        do {
            let transaction = try store.beginWrite()
            let table = try transaction.createTable(RandomizedModelTests.spec)
            // Keys spread out, so that later inserts land inside leaves, not only at their ends.
            for index in 0..<600 {
                let key = Int64(index * 4)
                let (object, values) = RandomizedModelTests.randomObject(using: &random)
                try transaction.insertObject(into: table, key: key, values: values)
                model[key] = object
            }
            try transaction.commit()
        }
        for round in 0..<400 {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Thing")
            let existing = Array(model.keys)
            switch Int.random(in: 0..<6, using: &random) {
            case 0:
                // An insert between existing keys.
                var key = Int64.random(in: 0..<2_400, using: &random)
                while model[key] != nil { key += 1 }
                let (object, values) = RandomizedModelTests.randomObject(using: &random)
                try transaction.insertObject(into: table, key: key, values: values)
                model[key] = object
            case 1:
                let key = existing.randomElement(using: &random)!
                #expect(try transaction.deleteObject(from: table, key: key))
                model[key] = nil
            case 2:
                // The same value again: the column is unchanged.
                let key = existing.randomElement(using: &random)!
                try transaction.setValue(model[key]!.scalars[0]!, in: table, key: key, column: 0)
            default:
                let key = existing.randomElement(using: &random)!
                let column = Int.random(in: RandomizedModelTests.scalarColumns, using: &random)
                let value = RandomizedModelTests.randomValue(column: column, using: &random)
                try transaction.setValue(value, in: table, key: key, column: column)
                model[key]!.scalars[column] = value
            }
            try transaction.commit()
            if round % 40 == 39 {
                store.close()
                store = try Self.openStore(path)
                try Self.checkScalars(try store.snapshot(), against: model)
                #expect(try store.verify().isValid)
            }
            if round % 150 == 149 {
                try store.compact()
                try Self.checkScalars(try store.snapshot(), against: model)
            }
        }
        store.close()
        store = try Self.openStore(path)
        try Self.checkScalars(try store.snapshot(), against: model)
        let report = try store.verify()
        #expect(report.isValid, "\(report)")
        store.close()
    }

    static func checkScalars(_ reader: some VersionReading, against model: Model) throws {
        let table = try reader.table(named: "Thing")
        #expect(try reader.objectKeys(in: table) == model.keys.sorted())
        for (key, expected) in model {
            let row = try reader.row(in: table, key: key)
            for column in RandomizedModelTests.scalarColumns {
                #expect(row[column] == expected.scalars[column], "column \(column) of object \(key)")
            }
        }
    }

    static let wordsAndStrings = TableSpec(name: "Thing", columns: [
        ColumnSpec(name: "number", type: .int),
        ColumnSpec(name: "name", type: .string, isNullable: true),
    ])

    /// A leaf of `count` objects (keys 0..<count), committed whole.
    static func storeWithOneLeaf(_ path: String, count: Int = 100) throws -> Store {
        let store = try openStore(path)
        let transaction = try store.beginWrite()
        let table = try transaction.createTable(wordsAndStrings)
        for key in 0..<count {
            try transaction.insertObject(into: table, key: Int64(key), values: [.int(Int64(key)), .string("name \(key) of the leaf")])
        }
        try transaction.commit()
        return store
    }

    /// ``storeWithOneLeaf(_:count:)``, then object `key`'s string changed in a commit of its own,
    /// so that its column is written as a change: the store, its file, and where the change and
    /// the whole column under it are.
    static func storeWithOneChange(_ path: String, key: Int64) throws -> (store: Store, file: StorageFile, change: UInt64, base: UInt64) {
        let store = try storeWithOneLeaf(path)
        let transaction = try store.beginWrite()
        try transaction.setValue(.string("changed"), in: try transaction.table(named: "Thing"), key: key, column: 1)
        try transaction.commit()
        let file = try #require(store.currentFile)
        let change = try columnNode(in: store, key: key, column: 1).offset
        let base = try #require(try file.readNode(at: change).children.first)
        return (store, file, change, base)
    }

    @Test func aOneRowChangeAppendsTheRowNotTheColumn() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Self.storeWithOneLeaf(path)
        let whole = try Self.columnNode(in: store, key: 0, column: 1)
        #expect(whole.node.changeDepth == 0)
        let before = store.fileSize
        let transaction = try store.beginWrite()
        try transaction.setValue(.string("renamed"), in: try transaction.table(named: "Thing"), key: 50, column: 1)
        try transaction.commit()
        let appended = store.fileSize - before
        store.close()
        let reopened = try Self.openStore(path)
        let changed = try Self.columnNode(in: reopened, key: 50, column: 1)
        #expect(changed.node.changeDepth == 1)
        #expect(changed.node.storage.strings[50] == "renamed")
        #expect(changed.node.storage.count == 100)
        // The change holds one string; the whole column holds a hundred.
        let image = try #require(reopened.currentFile).readNode(at: changed.offset)
        #expect(image.kind == NodeKind.columnChange.rawValue)
        #expect(image.children == [whole.offset])
        #expect(image.encodedSize < 64)
        #expect(appended < UInt64(whole.node.storedSize))
        // The other column did not change at all.
        #expect(try Self.columnNode(in: reopened, key: 50, column: 0).offset == (try Self.columnNode(in: reopened, key: 0, column: 0)).offset)
        reopened.close()
    }

    @Test func stacksStopAtTheirDepthAndStartAgainWhole() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var store = try Self.storeWithOneLeaf(path)
        var expected = (0..<100).map { Int64($0) }
        for round in 1...(3 * (ColumnNode.maximumChangeDepth + 1)) {
            let transaction = try store.beginWrite()
            let row = (round * 37) % 100
            try transaction.setValue(.int(Int64(-round)), in: try transaction.table(named: "Thing"), key: Int64(row), column: 0)
            try transaction.commit()
            expected[row] = Int64(-round)
            store.close()
            store = try Self.openStore(path)
            let (node, _) = try Self.columnNode(in: store, key: 0, column: 0)
            #expect(node.changeDepth == round % (ColumnNode.maximumChangeDepth + 1), "round \(round)")
            #expect(node.storage.words.map { Int64(bitPattern: $0) } == expected, "round \(round)")
        }
        store.close()
    }

    @Test func insertsAndRemovesInsideALeafReadBack() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        var store = try Self.storeWithOneLeaf(path)
        var keys = (0..<100).map { Int64($0 * 10) }
        // Rekey: the leaf above used keys 0..<100; use keys spread by 10 instead.
        do {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Thing")
            try transaction.removeAllObjects(from: table)
            for key in keys { try transaction.insertObject(into: table, key: key, values: [.int(key), .null]) }
            try transaction.commit()
        }
        var random = SeededGenerator(seed: 5)
        for round in 0..<30 {
            let transaction = try store.beginWrite()
            let table = try transaction.table(named: "Thing")
            if round % 3 == 2 {
                let key = keys.remove(at: Int.random(in: 0..<keys.count, using: &random))
                #expect(try transaction.deleteObject(from: table, key: key))
            } else {
                var key = Int64.random(in: 0..<1_000, using: &random)
                while keys.contains(key) { key += 1 }
                try transaction.insertObject(into: table, key: key, values: [.int(key), round % 2 == 0 ? .null : .string("k\(key)")])
                keys.append(key)
                keys.sort()
            }
            try transaction.commit()
            store.close()
            store = try Self.openStore(path)
            let snapshot = try store.snapshot()
            let handle = try snapshot.table(named: "Thing")
            #expect(try snapshot.objectKeys(in: handle) == keys)
            for key in keys { #expect(try snapshot.value(in: handle, key: key, column: 0) == .int(key)) }
        }
        store.close()
    }

    @Test func canonicallyEqualStringsKeepTheirOwnBytes() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Self.openStore(path)
        let composed = "caf\u{E9}", decomposed = "cafe\u{301}"
        #expect(composed == decomposed)
        do {
            let transaction = try store.beginWrite()
            let table = try transaction.createTable(Self.wordsAndStrings)
            for key in 0..<50 { try transaction.insertObject(into: table, key: Int64(key), values: [.int(0), .string(composed)]) }
            try transaction.commit()
        }
        let transaction = try store.beginWrite()
        try transaction.setValue(.string(decomposed), in: try transaction.table(named: "Thing"), key: 20, column: 1)
        try transaction.commit()
        store.close()
        let reopened = try Self.openStore(path)
        let snapshot = try reopened.snapshot()
        let table = try snapshot.table(named: "Thing")
        for key in 0..<50 {
            guard case .string(let read) = try snapshot.value(in: table, key: Int64(key), column: 1) else {
                Issue.record("object \(key) lost its string")
                continue
            }
            #expect(Array(read.utf8) == Array((key == 20 ? decomposed : composed).utf8), "object \(key)")
        }
        reopened.close()
    }

    @Test func damageUnderAChangeIsReportedWhenRead() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (store, _, _, base) = try Self.storeWithOneChange(path, key: 3)
        store.close()
        // One byte of the whole column's payload, under the change.
        let opened: Foundation.FileHandle? = Foundation.FileHandle(forUpdatingAtPath: path)
        let handle = try #require(opened)
        try handle.seek(toOffset: base + UInt64(NodeImage.headerSize) + 12)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: base + UInt64(NodeImage.headerSize) + 12)
        try handle.write(contentsOf: [byte ^ 0xFF])
        try handle.close()
        let reopened = try Self.openStore(path)
        let snapshot = try reopened.snapshot()
        let table = try snapshot.table(named: "Thing")
        #expect(throws: FloeError.self) { _ = try snapshot.value(in: table, key: 3, column: 1) }
        do {
            _ = try snapshot.value(in: table, key: 3, column: 1)
        } catch {
            guard case .corruptFile(_, _, let detail) = error else {
                Issue.record("expected corruptFile, got \(error)")
                return
            }
            #expect(detail.contains("under a column change"), "\(detail)")
        }
        // The column beside it reads on.
        #expect(try snapshot.value(in: table, key: 3, column: 0) == .int(3))
        reopened.close()
    }

    @Test func liveBytesNeverCountTheColumnsUnderChangesAsDead() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let store = try Self.storeWithOneLeaf(path, count: 250)
        for round in 0..<200 {
            let transaction = try store.beginWrite()
            try transaction.setValue(.string("round \(round)"), in: try transaction.table(named: "Thing"), key: Int64(round % 250), column: 1)
            try transaction.commit()
        }
        let estimate = try #require(store.currentFile?.lastCommit?.liveBytes)
        let copyPath = directory.file("copy.floe")
        try store.writeCopy(to: copyPath)
        let copy = try Store.open(path: copyPath, options: StoreOptions(readOnly: true))
        // The copy holds exactly the nodes the newest version reaches, stacks and all.
        let reachable = try #require(copy.currentFile?.lastCommit?.liveBytes)
        #expect(estimate >= reachable)
        let snapshot = try copy.snapshot()
        let table = try snapshot.table(named: "Thing")
        for key in 0..<250 {
            let expected = key < 200 ? "round \(key)" : "name \(key) of the leaf"
            #expect(try snapshot.value(in: table, key: Int64(key), column: 1) == .string(expected))
        }
        copy.close()
        store.close()
    }
}

extension ColumnChangeTests {
    /// A column change node read from a file whose checksums hold but whose fields do not:
    /// every one is a decode failure naming what is wrong, never a trap.
    @Test func malformedChangesAreRefusedNotTrappedOn() throws {
        let directory = TemporaryDirectory()
        let path = directory.file()
        let (store, file, changeOffset, baseOffset) = try Self.storeWithOneChange(path, key: 7)
        let change = try file.readNode(at: changeOffset)
        let (_, numbersOffset) = try Self.columnNode(in: store, key: 7, column: 0)
        let root = try #require(file.lastCommit?.rootRef)
        #expect(try ColumnNode.decode(change, source: file).storage.strings[7] == "changed")

        func payload(edit: UInt8 = 2, depth: UInt8 = 1, row: UInt32 = 7, value: ColumnStorage? = nil, valueRow: Int = 0) -> [UInt8] {
            var writer = ByteWriter()
            writer.append(edit)
            writer.append(depth)
            writer.append(UInt16(0))
            writer.append(row)
            if let value { value.encodeRow(valueRow, into: &writer) }
            return writer.bytes
        }
        var oneString = ColumnStorage(elementType: .string, nullable: true)
        oneString.append(.string("x"))
        var oneInt = ColumnStorage(elementType: .int, nullable: false)
        oneInt.append(.int(1))
        var notNullable = ColumnStorage(elementType: .string, nullable: false)
        notNullable.append(.string("x"))
        let cases: [(String, NodeImage)] = [
            ("unknown edit", NodeImage(kind: 8, children: [baseOffset], payload: payload(edit: 9, value: oneString))),
            ("depth 0", NodeImage(kind: 8, children: [baseOffset], payload: payload(depth: 0, value: oneString))),
            ("depth past the most", NodeImage(kind: 8, children: [baseOffset], payload: payload(depth: 5, value: oneString))),
            ("depth 2 on a whole column", NodeImage(kind: 8, children: [baseOffset], payload: payload(depth: 2, value: oneString))),
            ("replace past the rows", NodeImage(kind: 8, children: [baseOffset], payload: payload(row: 100, value: oneString))),
            ("insert past the rows", NodeImage(kind: 8, children: [baseOffset], payload: payload(edit: 1, row: 101, value: oneString))),
            ("remove past the rows", NodeImage(kind: 8, children: [baseOffset], payload: payload(edit: 3, row: 100))),
            ("a value of another type", NodeImage(kind: 8, children: [baseOffset], payload: payload(value: oneInt))),
            ("a value of other nullability", NodeImage(kind: 8, children: [baseOffset], payload: payload(value: notNullable))),
            ("no value", NodeImage(kind: 8, children: [baseOffset], payload: payload())),
            ("cut short", NodeImage(kind: 8, children: [baseOffset], payload: [2, 1])),
            ("two children", NodeImage(kind: 8, children: [baseOffset, baseOffset], payload: payload(value: oneString))),
            ("on the group node", NodeImage(kind: 8, children: [root], payload: payload(value: oneString))),
            ("on another column's change depth", NodeImage(kind: 8, children: [changeOffset], payload: payload(value: oneString))),
            ("outside the file", NodeImage(kind: 8, children: [1 << 40], payload: payload(value: oneString))),
            ("on a word column with a string", NodeImage(kind: 8, children: [numbersOffset], payload: payload(value: oneString))),
        ]
        for (name, image) in cases {
            #expect(throws: DecodeFailure.self, "\(name)") { _ = try ColumnNode.decode(image, source: file) }
        }
        store.close()
    }
}
