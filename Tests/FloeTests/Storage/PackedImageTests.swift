import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Node images write integers in as few bits as their spread needs: a leaf's consecutive keys
/// as a run, other keys and inner nodes' keys and counts bit-packed, and int, bool and link
/// columns bit-packed. Images written before (plain words) still read.
@Suite struct PackedImageTests {
    static func packedSize(count: Int, width: Int) -> Int {
        width == 64 ? 1 + 8 * count : 1 + 8 + (count * width + 7) / 8
    }

    @Test func packedIntegersRoundTripAtEveryWidth() throws {
        var random = SeededGenerator(seed: 7)
        let cases: [(values: [Int64], width: Int)] = [
            ([], 0), ([42], 0), ([-7, -7, -7], 0), ([0, 1, 1, 0, 1], 1), ([5, 8, 6], 2), ([-3, 12, 0], 4),
            ([0, 255], 8), ([0, 256], 16), ([-1, 65_534], 16), ([0, 65_536], 32), ([-5, 4_294_967_290], 32),
            ([.min, .min + 4_294_967_295], 32), ([.min, .max], 64), ([.max, 0, .min], 64), ([0, 4_294_967_296], 64),
            ((0..<257).map { _ in Int64(random.next() % 1000) - 500 }, 16),
            ((0..<33).map { Int64($0 % 3) }, 2), ((0..<9).map { Int64($0) }, 4), ((0..<3).map { _ in Int64(bitPattern: random.next()) }, 64),
        ]
        for (values, width) in cases {
            var writer = ByteWriter()
            values.withUnsafeBufferPointer { writer.appendPacked($0) }
            #expect(writer.bytes.first.map(Int.init) == width, "\(values)")
            #expect(writer.count == Self.packedSize(count: values.count, width: width), "\(values)")
            var reader = ByteReader(writer.bytes)
            #expect(try reader.readPacked(values.count, as: Int64.self) == values)
            #expect(reader.isAtEnd)
            var words = ByteReader(writer.bytes)
            #expect(try words.readPacked(values.count, as: UInt64.self) == values.map { UInt64(bitPattern: $0) })
            if writer.count > 9 {
                var short = ByteReader(Array(writer.bytes.dropLast()))
                #expect(throws: ByteReader.Truncated.self) { _ = try short.readPacked(values.count, as: Int64.self) }
            }
        }
        // Every width a writer does not produce is refused.
        for width: UInt8 in [3, 5, 7, 12, 24, 63, 65, 255] {
            var reader = ByteReader([width] + [UInt8](repeating: 0, count: 64))
            #expect(throws: ByteReader.BadWidth.self) { _ = try reader.readPacked(4, as: Int64.self) }
        }
    }

    @Test func skippedRowsNeitherWidenNorChangeTheOthers() throws {
        let values: [Int64] = [0, 1_000_000_000_000, 1_000_000_000_003, 0, 1_000_000_000_001]
        let skipped = [true, false, false, true, false]
        var writer = ByteWriter()
        values.withUnsafeBufferPointer { writer.appendPacked($0, skipping: skipped) }
        #expect(writer.bytes.first == 2)
        var reader = ByteReader(writer.bytes)
        let read = try reader.readPacked(values.count, as: Int64.self)
        #expect(read[1] == values[1] && read[2] == values[2] && read[4] == values[4])
        // All skipped: nothing to measure, width 0.
        var none = ByteWriter()
        values.withUnsafeBufferPointer { none.appendPacked($0, skipping: [Bool](repeating: true, count: values.count)) }
        #expect(none.bytes.first == 0)
    }

    static func roundTrip(_ storage: ColumnStorage) throws -> (ColumnStorage, [UInt8]) {
        var writer = ByteWriter()
        storage.encode(into: &writer)
        var reader = ByteReader(writer.bytes)
        let decoded = try ColumnStorage.decode(from: &reader, children: [], source: nil)
        #expect(reader.isAtEnd)
        return (decoded, writer.bytes)
    }

    @Test func integerColumnsArePackedAndOtherWordsAreNot() throws {
        let samples: [(ColumnType, Bool, [Value], layoutTag: UInt8, width: Int?)] = [
            (.int, false, [], 7, 0),
            (.int, false, [.int(-12)], 7, 0),
            (.int, false, (0..<256).map { .int(Int64($0 % 100)) }, 7, 8),
            (.int, false, [.int(-40_000), .int(-1), .int(20_000)], 7, 16),
            (.int, false, [.int(.min), .int(0), .int(.max)], 7, 64),
            (.int, true, [.null, .int(1_000_000_000_000), .null, .int(1_000_000_000_002)], 7, 2),
            (.int, true, [.null, .null], 7, 0),
            (.int, true, [.int(.max), .null, .int(.min)], 7, 64),
            (.bool, false, [.bool(true), .bool(false), .bool(true)], 7, 1),
            (.bool, true, [.null, .bool(true), .bool(true)], 7, 0),
            (.link, true, [.link(5), .null, .link(300), .link(0)], 7, 16),
            (.double, false, [.double(1), .double(2)], 1, nil),
            (.float, false, [.float(1)], 1, nil),
            (.timestamp, true, [.timestamp(3), .null], 1, nil),
        ]
        for (type, nullable, values, tag, width) in samples {
            var storage = ColumnStorage(elementType: type, nullable: nullable)
            for value in values { storage.append(value) }
            let (decoded, bytes) = try Self.roundTrip(storage)
            #expect(bytes[0] == tag, "\(type) \(values)")
            #expect((0..<decoded.count).map { decoded.value(at: $0) } == values, "\(type) \(values)")
            // A null cell's word stays 0 whatever the base of the packed values.
            #expect(decoded.words == storage.words, "\(type) \(values)")
            if let width {
                let bitmap = nullable ? (values.count + 7) / 8 : 0
                #expect(Int(bytes[8 + bitmap]) == width, "\(type) \(values)")
                #expect(bytes.count == 8 + bitmap + Self.packedSize(count: values.count, width: width), "\(type) \(values)")
            }
        }
    }

    @Test func damagedPackedColumnsAreRefused() throws {
        var storage = ColumnStorage(elementType: .int, nullable: false)
        for age in 0..<40 { storage.append(.int(Int64(age))) }
        var writer = ByteWriter()
        storage.encode(into: &writer)
        let bytes = writer.bytes
        #expect(bytes[8] == 8)
        func refused(_ damaged: [UInt8]) -> Bool {
            var reader = ByteReader(damaged)
            do {
                _ = try ColumnStorage.decode(from: &reader, children: [], source: nil)
                return false
            } catch {
                return true
            }
        }
        #expect(refused(Array(bytes.dropLast())))  // cut short
        var badWidth = bytes
        badWidth[8] = 5
        #expect(refused(badWidth))
        var wider = bytes
        wider[8] = 16  // a valid width, but the bytes are too few for it
        #expect(refused(wider))
        var double = bytes
        double[1] = ColumnType.double.rawValue  // a packed double is no encoding
        #expect(refused(double))
        // A width-0 column claiming more rows than any leaf holds.
        var huge = ByteWriter()
        huge.append(ColumnStorage.packedWordsTag)
        huge.append(ColumnType.int.rawValue)
        huge.append(UInt16(0))
        huge.append(UInt32.max)
        huge.append(UInt8(0))
        huge.append(Int64(3))
        #expect(refused(huge.bytes))
    }

    static func withFile<R>(_ body: (StorageFile) throws -> R) throws -> R {
        let directory = TemporaryDirectory("packed")
        let file = try StorageFile.open(path: directory.file(), readOnly: false, durability: .none)
        return try body(file)
    }

    static func leafImage(_ keys: [Int64]) -> NodeImage { ClusterNode(leafKeys: keys, columns: []).image() }

    @Test func leafKeysAreARunWhenConsecutiveAndPackedOtherwise() throws {
        try Self.withFile { file in
            let cases: [(keys: [Int64], encoding: ClusterNode.KeyEncoding, payload: Int)] = [
                ([], .leafWords, 5),
                ([9], .leafRun, 13),
                (Array(0..<256), .leafRun, 13),
                (Array(1_000_000..<1_000_256), .leafRun, 13),
                ([.max - 2, .max - 1, .max], .leafRun, 13),
                ([0, 2], .leafPacked, 5 + Self.packedSize(count: 2, width: 2)),
                (Array(0..<256).filter { $0 != 10 }, .leafPacked, 5 + Self.packedSize(count: 255, width: 8)),
                ([0, 1, 5, 2], .leafPacked, 5 + Self.packedSize(count: 4, width: 4)),  // not increasing: never a run
                ([.min + 1, 0, .max], .leafPacked, 5 + Self.packedSize(count: 3, width: 64)),
                ([7, 70_000, 4_000_000_000], .leafPacked, 5 + Self.packedSize(count: 3, width: 32)),
            ]
            for (keys, encoding, payload) in cases {
                let image = Self.leafImage(keys)
                #expect(image.payload.first == encoding.rawValue, "\(keys.prefix(4))")
                #expect(image.payload.count == payload, "\(keys.prefix(4))")
                let node = try ClusterNode.decode(image, source: file)
                #expect(node.isLeaf)
                #expect(node.keys == keys)
            }
        }
    }

    @Test func innerNodesPackTheirKeysAndCounts() throws {
        try Self.withFile { file in
            let keys: [Int64] = (0..<64).map { Int64($0) * 256 + 5 }
            let counts = (0..<64).map { 128 + $0 }
            let inner = ClusterNode(innerKeys: keys, counts: counts, children: (0..<64).map { NodeRef(offset: UInt64(128 + 8 * $0), source: file) })
            let image = inner.image()
            #expect(image.payload.first == ClusterNode.KeyEncoding.innerPacked.rawValue)
            #expect(image.payload.count == 5 + Self.packedSize(count: 64, width: 16) + Self.packedSize(count: 64, width: 8))
            let node = try ClusterNode.decode(image, source: file)
            #expect(!node.isLeaf)
            #expect(node.keys == keys)
            #expect(node.counts == counts)
            #expect(node.children.map(\.offset) == image.children)
        }
    }

    @Test func imagesOfPlainWordsStillRead() throws {
        try Self.withFile { file in
            // A leaf and an inner node as written before packing: `u8 1 | 0, u32 n`, plain words.
            var leaf = ByteWriter()
            leaf.append(UInt8(1))
            leaf.append(UInt32(3))
            leaf.appendInts([4, 9, 200])
            let readLeaf = try ClusterNode.decode(NodeImage(kind: NodeKind.clusterLeaf.rawValue, payload: leaf.bytes), source: file)
            #expect(readLeaf.keys == [4, 9, 200])
            var inner = ByteWriter()
            inner.append(UInt8(0))
            inner.append(UInt32(2))
            inner.appendInts([0, 300, 256, 10])
            let readInner = try ClusterNode.decode(NodeImage(kind: NodeKind.clusterInner.rawValue, children: [128, 256], payload: inner.bytes), source: file)
            #expect(readInner.keys == [0, 300])
            #expect(readInner.counts == [256, 10])
            // A words column (layout 1) of ints.
            var column = ByteWriter()
            column.append(ColumnStorage.Layout.words.rawValue)
            column.append(ColumnType.int.rawValue)
            column.append(UInt8(1))
            column.append(UInt8(0))
            column.append(UInt32(3))
            column.appendBits([false, true, false])
            column.appendInts([-5, 0, .max])
            var reader = ByteReader(column.bytes)
            let storage = try ColumnStorage.decode(from: &reader, children: [], source: nil)
            #expect((0..<3).map { storage.value(at: $0) } == [.int(-5), .null, .int(.max)])
        }
    }

    @Test func damagedClusterImagesAreRefused() throws {
        try Self.withFile { file in
            func refused(_ kind: NodeKind, _ payload: [UInt8], children: [UInt64] = []) -> Bool {
                (try? ClusterNode.decode(NodeImage(kind: kind.rawValue, children: children, payload: payload), source: file)) == nil
            }
            let run = Self.leafImage(Array(10..<20)).payload
            #expect(!refused(.clusterLeaf, run))
            #expect(refused(.clusterInner, run))  // a leaf's encoding in an inner node
            #expect(refused(.clusterLeaf, Array(run.dropLast())))
            var pastTheEnd = ByteWriter()
            pastTheEnd.append(ClusterNode.KeyEncoding.leafRun.rawValue)
            pastTheEnd.append(UInt32(2))
            pastTheEnd.append(Int64.max)
            #expect(refused(.clusterLeaf, pastTheEnd.bytes))
            var unknown = run
            unknown[0] = 9
            #expect(refused(.clusterLeaf, unknown))
            let packed = Self.leafImage([1, 5, 6]).payload
            #expect(!refused(.clusterLeaf, packed))
            #expect(refused(.clusterLeaf, Array(packed.dropLast())))
        }
    }

    static let dog = TableSpec(name: "Dog", columns: [
        ColumnSpec(name: "age", type: .int),
        ColumnSpec(name: "owner", type: .link, isNullable: true, linkTarget: "Dog"),
    ])

    static func firstLeaf(_ snapshot: Snapshot, _ table: TableHandle) throws -> ClusterNode {
        var node = try #require(try snapshot.tableNode(table).root).load()
        while !node.isLeaf { node = try node.children[0].load() }
        return node
    }

    @Test func aLeafGoesFromARunToGapsAfterADeleteAndBack() throws {
        let directory = TemporaryDirectory("packed-store")
        let path = directory.file()
        func reopened(_ check: (Snapshot, TableHandle) throws -> Void) throws {
            let store = try Store.open(path: path)
            defer { store.close() }
            let snapshot = try store.snapshot()
            try check(snapshot, try snapshot.table(named: "Dog"))
            try ClusterTree.checkInvariants(of: snapshot.tableNode(try snapshot.table(named: "Dog")).root, table: Self.dog)
            // The engine's delete leaves the links to key 10 as they are: the graph is not checked.
            #expect(try store.verify(checkingObjectGraph: false).problems == [])
        }
        do {
            let store = try Store.open(path: path)
            let write = try store.beginWrite()
            let dogs = try write.createTable(Self.dog)
            for index in 0..<600 {
                let owner: Value = index % 4 == 0 ? .null : .link(Int64(index / 2))
                _ = try write.insertObject(into: dogs, values: [.int(Int64(index % 90) - 30), owner])
            }
            _ = try write.commit()
            store.close()
        }
        func dogValues(_ index: Int) -> [Value] {
            let owner: Value = index % 4 == 0 ? .null : .link(Int64(index / 2))
            return [.int(Int64(index % 90) - 30), owner]
        }
        var expected: [Int64: [Value]] = [:]
        for index in 0..<600 { expected[Int64(index)] = dogValues(index) }
        func matches(_ snapshot: Snapshot, _ table: TableHandle) throws {
            #expect(try snapshot.objectKeys(in: table) == expected.keys.sorted())
            for (key, values) in expected { #expect(try snapshot.row(in: table, key: key) == values, "key \(key)") }
        }
        try reopened { snapshot, table in
            try matches(snapshot, table)
            #expect(try Self.firstLeaf(snapshot, table).image().payload.first == ClusterNode.KeyEncoding.leafRun.rawValue)
        }
        // Delete key 10: the first leaf's keys have a gap.
        do {
            let store = try Store.open(path: path)
            let write = try store.beginWrite()
            #expect(try write.deleteObject(from: try write.table(named: "Dog"), key: 10))
            _ = try write.commit()
            store.close()
        }
        expected[10] = nil
        try reopened { snapshot, table in
            try matches(snapshot, table)
            let leaf = try Self.firstLeaf(snapshot, table)
            #expect(!leaf.keys.contains(10))
            #expect(leaf.image().payload.first == ClusterNode.KeyEncoding.leafPacked.rawValue)
        }
        // Put key 10 back: a run again.
        do {
            let store = try Store.open(path: path)
            let write = try store.beginWrite()
            try write.insertObject(into: try write.table(named: "Dog"), key: 10, values: [.int(-1000), .link(599)])
            _ = try write.commit()
            store.close()
        }
        expected[10] = [.int(-1000), .link(599)]
        try reopened { snapshot, table in
            try matches(snapshot, table)
            #expect(try Self.firstLeaf(snapshot, table).image().payload.first == ClusterNode.KeyEncoding.leafRun.rawValue)
        }
    }

    @Test func aDamagedPackedColumnOnDiskIsReportedAsCorrupt() throws {
        let directory = TemporaryDirectory("packed-damage")
        let path = directory.file()
        var columnOffset: UInt64 = 0
        do {
            let store = try Store.open(path: path)
            let write = try store.beginWrite()
            let dogs = try write.createTable(Self.dog)
            for index in 0..<100 { _ = try write.insertObject(into: dogs, values: [.int(Int64(index)), .null]) }
            _ = try write.commit()
            let snapshot = try store.snapshot()
            let leaf = try Self.firstLeaf(snapshot, try snapshot.table(named: "Dog"))
            columnOffset = leaf.columns[0].offset
            #expect(try leaf.columns[0].load().image().payload[0] == ColumnStorage.packedWordsTag)
            store.close()
        }
        // The age column's payload: 8 bytes of column header, the width, the base, then one byte
        // per age. Damage an age in the middle.
        let opened: Foundation.FileHandle? = Foundation.FileHandle(forUpdatingAtPath: path)
        let handle = try #require(opened)
        try handle.seek(toOffset: columnOffset + 16 + 8 + 1 + 8 + 50)
        let byte = try #require(try handle.read(upToCount: 1)).first!
        try handle.seek(toOffset: columnOffset + 16 + 8 + 1 + 8 + 50)
        try handle.write(contentsOf: [byte ^ 0x04])
        try handle.close()
        func readEverything() -> FloeError? {
            do {
                let store = try Store.open(path: path)
                let snapshot = try store.snapshot()
                let table = try snapshot.table(named: "Dog")
                for key in 0..<100 { _ = try snapshot.value(in: table, key: Int64(key), column: 0) }
                store.close()
                return nil
            } catch {
                return error
            }
        }
        let failure = readEverything()
        guard case .corruptFile(_, let offset, _)? = failure else {
            Issue.record("the damaged age read without an error: \(String(describing: failure))")
            return
        }
        #expect(offset <= columnOffset)
        #expect(try !Store.verify(path: path).isValid)
    }

    static let fixture = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../Fixtures/word-images.floe-fixture").standardized

    /// Checks every value of the fixture's content, less `removed`, plus `changed`.
    static func expectFixture(_ snapshot: Snapshot, changed: [Int64: Value] = [:], added: [Int64: [Value]] = [:]) throws {
        let items = try snapshot.table(named: "Item")
        let keys = (0..<WordImagesFixture.itemCount).map(Int64.init).filter { !WordImagesFixture.deleted.contains($0) }
        #expect(try snapshot.objectKeys(in: items) == (keys + added.keys).sorted())
        for key in keys {
            var values = WordImagesFixture.itemValues(Int(key))
            if let age = changed[key] { values[0] = age }
            let row = try snapshot.row(in: items, key: key)
            for column in values.indices where column != 7 {
                #expect(row[column] == values[column], "Item \(key) column \(column)")
            }
            #expect(try snapshot.collectionElements(in: items, key: key, column: 7) == WordImagesFixture.scores(Int(key)), "Item \(key)")
        }
        for (key, values) in added {
            let row = try snapshot.row(in: items, key: key)
            #expect(row[0] == values[0] && row[1] == values[1] && row[5] == values[5])
        }
        #expect(try snapshot.findObjects(in: items, column: 8, equalTo: .int(3)).sorted() == keys.filter { $0 % 17 == 3 })
        let wide = try snapshot.table(named: "Wide")
        #expect(try snapshot.objectKeys(in: wide) == (0..<WordImagesFixture.wideCount).map(WordImagesFixture.wideKey))
        for index in 0..<WordImagesFixture.wideCount {
            #expect(try snapshot.row(in: wide, key: WordImagesFixture.wideKey(index)) == WordImagesFixture.wideValues(index), "Wide \(index)")
        }
        try ClusterTree.checkInvariants(of: snapshot.tableNode(items).root, table: WordImagesFixture.items)
        try ClusterTree.checkInvariants(of: snapshot.tableNode(wide).root, table: WordImagesFixture.wide)
    }

    /// A file written before packing (plain words for every key and integer) opens, reads the
    /// same, takes writes (packed images next to the old ones), and reads the same after.
    @Test func aFileOfPlainWordImagesOpensReadsAndTakesWrites() throws {
        let directory = TemporaryDirectory("word-images")
        let path = directory.file()
        try FileManager.default.copyItem(atPath: Self.fixture.path, toPath: path)
        do {
            let store = try Store.open(path: path)
            defer { store.close() }
            let snapshot = try store.snapshot()
            #expect(snapshot.version == 2)
            // The fixture's images are the old ones: its first leaf's keys are plain words.
            let file = try #require(store.currentFile)
            for name in ["Item", "Wide"] {
                var ref = try #require(try snapshot.tableNode(try snapshot.table(named: name)).root)
                while true {
                    let raw = try file.readNode(at: ref.offset)
                    let node = try ref.load()
                    #expect(raw.payload.first == (node.isLeaf ? ClusterNode.KeyEncoding.leafWords : .innerWords).rawValue, "\(name)")
                    if node.isLeaf {
                        #expect(try file.readNode(at: node.columns[0].offset).payload.first == ColumnStorage.Layout.words.rawValue)
                        break
                    }
                    ref = node.children[0]
                }
            }
            try Self.expectFixture(snapshot)
            // The fixture keeps links to the objects its engine-level deletes removed: the graph is not checked.
            #expect(try store.verify(checkingObjectGraph: false).problems == [])
            // Write into it: one age changed in the first leaf, one object added at the end.
            let write = try store.beginWrite()
            let items = try write.table(named: "Item")
            try write.setValue(.int(-77), in: items, key: 5, column: 0)
            try write.insertObject(into: items, key: 1000, values: [.int(1), .int(2), .bool(true), .null, .double(0), .string("new"),
                                                                       .timestamp(0), .null, .int(4)])
            _ = try write.commit()
        }
        let store = try Store.open(path: path)
        defer { store.close() }
        let snapshot = try store.snapshot()
        #expect(snapshot.version == 3)
        try Self.expectFixture(snapshot, changed: [5: .int(-77)],
                               added: [1000: [.int(1), .int(2), .bool(true), .null, .double(0), .string("new"), .timestamp(0), .null, .int(4)]])
        #expect(try store.verify(checkingObjectGraph: false).problems == [])
    }
}
