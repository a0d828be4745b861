import Synchronization
@_spi(Engine) import FloeStorage

/// The root of one version: the list of tables.
///
/// Payload: `u32 table count, u64 schema version`. Children: one table node per table, in creation order.
@_spi(Engine) public final class GroupNode: TreeNode, @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline package var tables: [NodeRef<TableNode>]
    /// The schema version the object layer last stored (see `Realm.Configuration.schemaVersion`).
    package var schemaVersion: UInt64
    @usableFromInline package var isMutable: Bool
    @usableFromInline package var storedSize = 0
    /// A number no other root of this process has had: cached rows name their version's root
    /// by it (comparing references would need them kept alive, and retained on every copy).
    @usableFromInline package let serial = GroupNode.serials.add(1, ordering: .relaxed).newValue

    private static let serials = Atomic<UInt64>(0)

    @usableFromInline package init(tables: [NodeRef<TableNode>] = [], schemaVersion: UInt64 = 0, isMutable: Bool = true) {
        self.tables = tables
        self.schemaVersion = schemaVersion
        self.isMutable = isMutable
    }

    @usableFromInline package static func decode(_ image: NodeImage, source: StorageFile) throws(DecodeFailure) -> GroupNode {
        guard image.kind == NodeKind.group.rawValue else { throw DecodeFailure("expected a group node, found kind \(image.kind)") }
        var reader = ByteReader(image.payload)
        guard let count = try? reader.read(UInt32.self), Int(count) == image.children.count,
              let schemaVersion = try? reader.read(UInt64.self)
        else {
            throw DecodeFailure("group table count does not match its children")
        }
        return GroupNode(tables: image.children.map { NodeRef(offset: $0, source: source) }, schemaVersion: schemaVersion, isMutable: false)
    }

    @usableFromInline package func image() -> NodeImage {
        var writer = ByteWriter(capacity: 12)
        writer.append(UInt32(tables.count))
        writer.append(schemaVersion)
        return NodeImage(kind: NodeKind.group.rawValue, children: tables.map(\.offset), payload: writer.takeBytes())
    }

    @usableFromInline package func mutableCopy() -> GroupNode { GroupNode(tables: tables, schemaVersion: schemaVersion, isMutable: true) }

    @usableFromInline package func forEachChild(_ body: (AnyNodeRef) throws -> Void) rethrows {
        for table in tables { try body(table) }
    }

    @usableFromInline package func childSlots() -> [AnyNodeRef?] { tables }

    @usableFromInline package func persistChangedChildren(into chunk: inout ChunkBuilder?) {
        tables.persistChanged(into: &chunk)
    }
}

/// One table: its schema, key allocation, row count and cluster tree.
///
/// Payload: name, kind, next key, row count, then each column's spec.
/// Children: `[cluster root or 0]`, then one search index root per column (0: no index, or empty).
@usableFromInline package final class TableNode: TreeNode, @unchecked Sendable {
    @exclusivity(unchecked) package var spec: TableSpec {
        didSet { specImage = nil }
    }
    @exclusivity(unchecked) @usableFromInline package var nextKey: Int64
    @exclusivity(unchecked) @usableFromInline package var count: Int
    @exclusivity(unchecked) @usableFromInline package var root: NodeRef<ClusterNode>?
    /// One search index per column, parallel to `spec.columns` (nil: not indexed, or empty).
    @exclusivity(unchecked) package var indexRoots: [NodeRef<ClusterNode>?]
    @usableFromInline @exclusivity(unchecked) package var isMutable: Bool
    @usableFromInline package var storedSize = 0
    /// The payload as last encoded, with `nextKey` and `count` to be patched in at
    /// `countersOffset` (right after the name and kind): a commit re-encoded the unchanged
    /// spec of every table it touched. Carried across ``mutableCopy()``; dropped when the spec
    /// changes. Set only by ``image()``, which runs with the writer's turn held (a commit, or
    /// `writeCopy`), so it is never set from two threads at once.
    private var specImage: (payload: [UInt8], countersOffset: Int)?

    package init(spec: TableSpec, nextKey: Int64 = 0, count: Int = 0, root: NodeRef<ClusterNode>? = nil,
         indexRoots: [NodeRef<ClusterNode>?]? = nil, isMutable: Bool = true) {
        self.spec = spec
        self.nextKey = nextKey
        self.count = count
        self.root = root
        self.indexRoots = indexRoots ?? Array(repeating: nil, count: spec.columns.count)
        self.isMutable = isMutable
    }

    @usableFromInline package static func decode(_ image: NodeImage, source: StorageFile) throws(DecodeFailure) -> TableNode {
        guard image.kind == NodeKind.table.rawValue, !image.children.isEmpty else {
            throw DecodeFailure("expected a table node, found kind \(image.kind)")
        }
        var reader = ByteReader(image.payload)
        do {
            let name = try reader.readString()
            guard let kind = TableKind(rawValue: try reader.read(UInt8.self)) else { throw DecodeFailure("unknown table kind") }
            let nextKey = try reader.read(Int64.self)
            let count = Int(try reader.read(UInt64.self))
            let columnCount = Int(try reader.read(UInt32.self))
            guard columnCount <= reader.remaining else { throw DecodeFailure("column count \(columnCount) is impossible") }
            var columns: [ColumnSpec] = []
            for _ in 0..<columnCount {
                let columnName = try reader.readString()
                guard let type = ColumnType(rawValue: try reader.read(UInt8.self)) else { throw DecodeFailure("unknown column type") }
                let nullable = try reader.read(UInt8.self) != 0
                guard let collection = CollectionKind(rawValue: try reader.read(UInt8.self)) else { throw DecodeFailure("unknown collection kind") }
                let bits = try reader.read(UInt8.self)
                let flags = try reader.read(UInt8.self)
                let target = try reader.readString()
                columns.append(ColumnSpec(name: columnName, type: type, isNullable: nullable, collection: collection,
                                          linkTarget: target.isEmpty ? nil : target, integerBits: bits,
                                          isIndexed: flags & 1 != 0, isPrimaryKey: flags & 2 != 0))
            }
            guard image.children.count == 1 + columns.count else {
                throw DecodeFailure("table node has \(image.children.count) children for \(columns.count) columns")
            }
            let refs = image.children.map { $0 == 0 ? nil : NodeRef<ClusterNode>(offset: $0, source: source) }
            return TableNode(spec: TableSpec(name: name, kind: kind, columns: columns), nextKey: nextKey,
                             count: count, root: refs[0], indexRoots: Array(refs.dropFirst()), isMutable: false)
        } catch let failure as DecodeFailure {
            throw failure
        } catch {
            throw DecodeFailure("table node ends early")
        }
    }

    @usableFromInline package func image() -> NodeImage {
        let children = [root?.offset ?? 0] + indexRoots.map { $0?.offset ?? 0 }
        if let (cached, at) = specImage {
            var payload = cached
            let (nextKey, count) = (nextKey, UInt64(count))
            payload.withUnsafeMutableBytes { bytes in
                bytes.storeBytes(of: nextKey.littleEndian, toByteOffset: at, as: Int64.self)
                bytes.storeBytes(of: count.littleEndian, toByteOffset: at + 8, as: UInt64.self)
            }
            return NodeImage(kind: NodeKind.table.rawValue, children: children, payload: payload)
        }
        var writer = ByteWriter(capacity: 64 + spec.columns.count * 32)
        writer.appendString(spec.name)
        writer.append(spec.kind.rawValue)
        let countersOffset = writer.count
        writer.append(nextKey)
        writer.append(UInt64(count))
        writer.append(UInt32(spec.columns.count))
        for column in spec.columns {
            writer.appendString(column.name)
            writer.append(column.type.rawValue)
            writer.append(UInt8(column.isNullable ? 1 : 0))
            writer.append(column.collection.rawValue)
            writer.append(column.integerBits)
            writer.append(UInt8((column.isIndexed ? 1 : 0) | (column.isPrimaryKey ? 2 : 0)))
            writer.appendString(column.linkTarget ?? "")
        }
        let payload = writer.takeBytes()
        specImage = (payload, countersOffset)
        return NodeImage(kind: NodeKind.table.rawValue, children: children, payload: payload)
    }

    @usableFromInline package func mutableCopy() -> TableNode {
        let copy = TableNode(spec: spec, nextKey: nextKey, count: count, root: root, indexRoots: indexRoots, isMutable: true)
        copy.specImage = specImage
        return copy
    }

    @usableFromInline package func forEachChild(_ body: (AnyNodeRef) throws -> Void) rethrows {
        if let root { try body(root) }
        for case let index? in indexRoots { try body(index) }
    }

    @usableFromInline package func childSlots() -> [AnyNodeRef?] { [root] + indexRoots }

    @usableFromInline package func persistChangedChildren(into chunk: inout ChunkBuilder?) {
        root?.persistIfChanged(into: &chunk)
        for case let index? in indexRoots { index.persistIfChanged(into: &chunk) }
    }
}

/// A node of a table's cluster tree, keyed by object key.
///
/// A leaf holds up to ``ClusterTree/leafCapacity`` objects: their keys, and one column
/// node per column. An inner node holds, per child, the child's first key and its number
/// of objects (for positional access).
///
/// Payload: `u8 key encoding, u32 n`, then the keys (and an inner node's counts) as that
/// encoding says (``KeyEncoding``): a run, packed integers, or plain words (older files).
/// Children: inner → the child nodes; leaf → the column nodes.
@usableFromInline package final class ClusterNode: TreeNode, @unchecked Sendable {
    package let isLeaf: Bool
    // `@exclusivity(unchecked)` here and on the other nodes' fields: every object read and
    // write goes through them, no access to them overlaps another, and the dynamic check cost
    // more than the reads themselves.
    @exclusivity(unchecked) @usableFromInline package var keys: [Int64]
    @exclusivity(unchecked) @usableFromInline package var counts: [Int]
    @exclusivity(unchecked) package var children: [NodeRef<ClusterNode>]
    @exclusivity(unchecked) @usableFromInline package var columns: [NodeRef<ColumnNode>]
    @exclusivity(unchecked) @usableFromInline package var isMutable: Bool
    @usableFromInline package var storedSize = 0

    @usableFromInline package init(leafKeys: [Int64], columns: [NodeRef<ColumnNode>], isMutable: Bool = true) {
        isLeaf = true
        keys = leafKeys
        counts = []
        children = []
        self.columns = columns
        self.isMutable = isMutable
    }

    @usableFromInline package init(innerKeys: [Int64], counts: [Int], children: [NodeRef<ClusterNode>], isMutable: Bool = true) {
        isLeaf = false
        keys = innerKeys
        self.counts = counts
        self.children = children
        columns = []
        self.isMutable = isMutable
    }

    /// Objects in this subtree.
    package var objectCount: Int { isLeaf ? keys.count : counts.reduce(0, +) }

    /// The first payload byte of a cluster node: how its keys (and an inner node's counts) are written.
    package enum KeyEncoding: UInt8, CaseIterable {
        /// Inner: `n × i64 keys, n × i64 counts` (files written before packing; still read).
        case innerWords = 0
        /// Leaf: `n × i64 keys` (files written before packing, and empty leaves).
        case leafWords = 1
        /// Leaf whose keys are consecutive: `i64 first key` (the keys are first, first + 1, …).
        case leafRun = 2
        /// Leaf: the keys as packed integers (`ByteWriter.appendPacked`).
        case leafPacked = 3
        /// Inner: the first keys, then the counts, each as packed integers.
        case innerPacked = 4
    }

    @usableFromInline package static func decode(_ image: NodeImage, source: StorageFile) throws(DecodeFailure) -> ClusterNode {
        var reader = ByteReader(image.payload)
        do {
            guard let encoding = KeyEncoding(rawValue: try reader.read(UInt8.self)) else {
                throw DecodeFailure("unknown cluster key encoding")
            }
            let count = Int(try reader.read(UInt32.self))
            let isLeaf = encoding != .innerWords && encoding != .innerPacked
            guard image.kind == (isLeaf ? NodeKind.clusterLeaf : NodeKind.clusterInner).rawValue else {
                throw DecodeFailure("expected a cluster \(isLeaf ? "leaf" : "inner node"), found kind \(image.kind)")
            }
            let keys: [Int64]
            switch encoding {
            case .innerWords, .leafWords:
                guard count * 8 <= reader.remaining else { throw DecodeFailure("cluster node count \(count) is impossible") }
                keys = try reader.readInts(count)
            case .leafRun:
                guard count <= ColumnStorage.packedRowLimit else { throw DecodeFailure("cluster leaf count \(count) is impossible") }
                let first = try reader.read(Int64.self)
                guard count == 0 || !first.addingReportingOverflow(Int64(count - 1)).overflow else {
                    throw DecodeFailure("a run of \(count) keys from \(first) passes the largest key")
                }
                keys = count == 0 ? [] : [Int64](unsafeUninitializedCapacity: count) { buffer, initialized in
                    for index in 0..<count { buffer[index] = first &+ Int64(index) }
                    initialized = count
                }
            case .leafPacked, .innerPacked:
                guard count <= ColumnStorage.packedRowLimit else { throw DecodeFailure("cluster node count \(count) is impossible") }
                keys = try reader.readPacked(count)
            }
            if isLeaf {
                return ClusterNode(leafKeys: keys, columns: image.children.map { NodeRef(offset: $0, source: source) }, isMutable: false)
            }
            guard image.children.count == count else {
                throw DecodeFailure("cluster inner node has \(image.children.count) children for \(count) keys")
            }
            let counts = encoding == .innerPacked ? try reader.readPacked(count, as: Int.self) : try reader.readInts(count).map { Int($0) }
            return ClusterNode(innerKeys: keys, counts: counts, children: image.children.map { NodeRef(offset: $0, source: source) }, isMutable: false)
        } catch let failure as DecodeFailure {
            throw failure
        } catch let bad as ByteReader.BadWidth {
            throw DecodeFailure("cluster node packs integers in \(bad.width) bits")
        } catch {
            throw DecodeFailure("cluster node ends early")
        }
    }

    @usableFromInline package func image() -> NodeImage {
        var writer = ByteWriter(capacity: 24 + keys.count * (isLeaf ? 8 : 16))
        writePayload(into: &writer)
        let kind = isLeaf ? NodeKind.clusterLeaf : NodeKind.clusterInner
        return NodeImage(kind: kind.rawValue, children: isLeaf ? columns.map(\.offset) : children.map(\.offset), payload: writer.takeBytes())
    }

    @usableFromInline package func write(into chunk: inout ChunkBuilder) -> (offset: UInt64, size: Int) {
        let kind = isLeaf ? NodeKind.clusterLeaf : NodeKind.clusterInner
        return chunk.appendNode(kind: kind.rawValue, childCount: isLeaf ? columns.count : children.count) { writer in
            if isLeaf {
                columns.appendOffsets(to: &writer)
            } else {
                children.appendOffsets(to: &writer)
            }
            writePayload(into: &writer)
        }
    }

    private func writePayload(into writer: inout ByteWriter) {
        if !isLeaf {
            writer.append(KeyEncoding.innerPacked.rawValue)
            writer.append(UInt32(keys.count))
            keys.withUnsafeBufferPointer { writer.appendPacked($0) }
            counts.withUnsafeBufferPointer { writer.appendPacked($0) }
        } else if Self.areConsecutive(keys) {
            writer.append(KeyEncoding.leafRun.rawValue)
            writer.append(UInt32(keys.count))
            writer.append(keys[0])
        } else if keys.isEmpty {
            writer.append(KeyEncoding.leafWords.rawValue)
            writer.append(UInt32(0))
        } else {
            writer.append(KeyEncoding.leafPacked.rawValue)
            writer.append(UInt32(keys.count))
            keys.withUnsafeBufferPointer { writer.appendPacked($0) }
        }
    }

    /// Whether `keys` are first, first + 1, … (and not empty).
    package static func areConsecutive(_ keys: [Int64]) -> Bool {
        guard let first = keys.first, UInt64(bitPattern: keys[keys.count - 1] &- first) == UInt64(keys.count - 1) else { return false }
        return keys.withUnsafeBufferPointer { buffer in
            var expected = first
            for key in buffer {
                if key != expected { return false }
                expected &+= 1
            }
            return true
        }
    }

    @usableFromInline package func mutableCopy() -> ClusterNode {
        isLeaf ? ClusterNode(leafKeys: keys, columns: columns)
               : ClusterNode(innerKeys: keys, counts: counts, children: children)
    }

    @usableFromInline package func forEachChild(_ body: (AnyNodeRef) throws -> Void) rethrows {
        if isLeaf { for column in columns { try body(column) } } else { for child in children { try body(child) } }
    }

    @usableFromInline package func childSlots() -> [AnyNodeRef?] { isLeaf ? columns : children }

    @usableFromInline package func persistChangedChildren(into chunk: inout ChunkBuilder?) {
        if isLeaf {
            columns.persistChanged(into: &chunk)
        } else {
            children.persistChanged(into: &chunk)
        }
    }
}

/// One column of one cluster leaf.
///
/// Payload: the column encoding (``ColumnStorage``). Children: for collection columns,
/// one collection root per row (0: empty).
///
/// A column copied from a written one and changed in a single row is written as that change
/// alone (a column change node, ``NodeKind/columnChange``, on top of the column it was copied
/// from), not re-imaged whole: see `ColumnNode+Changes.swift`.
@usableFromInline package final class ColumnNode: TreeNode, @unchecked Sendable {
    @exclusivity(unchecked) @usableFromInline package var storage: ColumnStorage
    @usableFromInline @exclusivity(unchecked) package var isMutable: Bool
    /// Bytes of this node's own image in the file.
    private var ownStoredSize = 0
    /// Bytes of the written columns this one's image is a change to (0: a whole image).
    package var baseStoredSize = 0
    /// How many column changes this node's image stacks on a whole image (0: it is whole).
    package var changeDepth = 0
    /// The written column this mutable one was copied from, and where it was written: what
    /// its image may describe a change to. Let go of once the node is written.
    @usableFromInline package var copiedFrom: (node: ColumnNode, offset: UInt64)?

    /// The bytes the file holds for this column: its own image and any it is a change to.
    @usableFromInline package var storedSize: Int {
        get { ownStoredSize + baseStoredSize }
        set { ownStoredSize = newValue }
    }

    @usableFromInline package init(storage: ColumnStorage, isMutable: Bool = true) {
        self.storage = storage
        self.isMutable = isMutable
    }

    @usableFromInline package static func decode(_ image: NodeImage, source: StorageFile) throws(DecodeFailure) -> ColumnNode {
        if image.kind == NodeKind.columnChange.rawValue { return try decodeChange(image, source: source) }
        guard image.kind == NodeKind.column.rawValue else { throw DecodeFailure("expected a column node, found kind \(image.kind)") }
        var reader = ByteReader(image.payload)
        let storage = try ColumnStorage.decode(from: &reader, children: image.children[...], source: source)
        return ColumnNode(storage: storage, isMutable: false)
    }

    @usableFromInline package func image() -> NodeImage {
        if let change = imageAsChange() { return change }
        var writer = ByteWriter(capacity: 16 + storage.count * 8)
        storage.encode(into: &writer)
        let children = storage.layout == .collections ? storage.collections.map { $0?.offset ?? 0 } : []
        return NodeImage(kind: NodeKind.column.rawValue, children: children, payload: writer.takeBytes())
    }

    @usableFromInline package func write(into chunk: inout ChunkBuilder) -> (offset: UInt64, size: Int) {
        if let (baseOffset, edit, row) = changeToWrite() {
            return chunk.appendNode(kind: NodeKind.columnChange.rawValue, childCount: 1) { writer in
                writer.append(baseOffset)
                writeChangePayload(edit, row: row, into: &writer)
            }
        }
        let hasChildren = storage.layout == .collections
        return chunk.appendNode(kind: NodeKind.column.rawValue, childCount: hasChildren ? storage.collections.count : 0) { writer in
            if hasChildren { for root in storage.collections { writer.append(root?.offset ?? 0) } }
            storage.encode(into: &writer)
        }
    }

    @usableFromInline package func mutableCopy() -> ColumnNode { ColumnNode(storage: storage) }

    @usableFromInline package func mutableCopy(writtenAt offset: UInt64) -> ColumnNode {
        let copy = ColumnNode(storage: storage)
        if offset != 0, storage.layout != .collections { copy.copiedFrom = (self, offset) }
        return copy
    }

    /// One row's value, read in place (going through `storage` from outside copies the struct).
    @inline(__always)
    package func value(at row: Int) -> Value { storage.value(at: row) }

    @usableFromInline package func forEachChild(_ body: (AnyNodeRef) throws -> Void) rethrows {
        for case let root? in storage.collections { try body(root) }
    }

    @usableFromInline package func childSlots() -> [AnyNodeRef?] { storage.layout == .collections ? storage.collections : [] }

    @usableFromInline package func persistChangedChildren(into chunk: inout ChunkBuilder?) {
        for case let root? in storage.collections { root.persistIfChanged(into: &chunk) }
    }
}

/// A node of a list, set or map: a positional tree whose leaves hold elements (and, for
/// maps, their keys) as one ``ColumnStorage``.
///
/// Payload: `u8 is leaf, u8 has keys, u32 n`, then inner: `n × i64 counts`; leaf: the keys
/// (maps: n length-prefixed strings) and the element column.
package final class CollectionNode: TreeNode, @unchecked Sendable {
    package let isLeaf: Bool
    package var elements: ColumnStorage
    package var mapKeys: [String]?
    package var counts: [Int]
    package var children: [NodeRef<CollectionNode>]
    @usableFromInline package var isMutable: Bool
    @usableFromInline package var storedSize = 0

    @usableFromInline package init(elements: ColumnStorage, mapKeys: [String]?, isMutable: Bool = true) {
        isLeaf = true
        self.elements = elements
        self.mapKeys = mapKeys
        counts = []
        children = []
        self.isMutable = isMutable
    }

    @usableFromInline package init(counts: [Int], children: [NodeRef<CollectionNode>], elementType: ColumnType, isMutable: Bool = true) {
        isLeaf = false
        elements = ColumnStorage(elementType: elementType, nullable: false)
        mapKeys = nil
        self.counts = counts
        self.children = children
        self.isMutable = isMutable
    }

    package var elementCount: Int { isLeaf ? elements.count : counts.reduce(0, +) }

    @usableFromInline package static func decode(_ image: NodeImage, source: StorageFile) throws(DecodeFailure) -> CollectionNode {
        var reader = ByteReader(image.payload)
        do {
            let isLeaf = try reader.read(UInt8.self) != 0
            let hasKeys = try reader.read(UInt8.self) != 0
            let count = Int(try reader.read(UInt32.self))
            guard count <= reader.remaining * 8 + image.children.count else { throw DecodeFailure("collection count \(count) is impossible") }
            if !isLeaf {
                guard image.kind == NodeKind.collectionInner.rawValue, image.children.count == count else {
                    throw DecodeFailure("collection inner node has \(image.children.count) children for \(count) counts")
                }
                let counts = try reader.readInts(count).map { Int($0) }
                let elementType = ColumnType(rawValue: try reader.read(UInt8.self)) ?? .int
                return CollectionNode(counts: counts, children: image.children.map { NodeRef(offset: $0, source: source) },
                                      elementType: elementType, isMutable: false)
            }
            guard image.kind == NodeKind.collectionLeaf.rawValue else { throw DecodeFailure("expected a collection leaf, found kind \(image.kind)") }
            var keys: [String]?
            if hasKeys {
                var decoded: [String] = []
                decoded.reserveCapacity(count)
                for _ in 0..<count { decoded.append(try reader.readString()) }
                keys = decoded
            }
            let elements = try ColumnStorage.decode(from: &reader, children: [], source: source)
            guard elements.count == count else { throw DecodeFailure("collection leaf holds \(elements.count) elements, expected \(count)") }
            return CollectionNode(elements: elements, mapKeys: keys, isMutable: false)
        } catch let failure as DecodeFailure {
            throw failure
        } catch {
            throw DecodeFailure("collection node ends early")
        }
    }

    @usableFromInline package func image() -> NodeImage {
        var writer = ByteWriter(capacity: 16 + elements.count * 8)
        writer.append(UInt8(isLeaf ? 1 : 0))
        writer.append(UInt8(mapKeys == nil ? 0 : 1))
        if isLeaf {
            writer.append(UInt32(elements.count))
            for key in mapKeys ?? [] { writer.appendString(key) }
            elements.encode(into: &writer)
            return NodeImage(kind: NodeKind.collectionLeaf.rawValue, payload: writer.takeBytes())
        }
        writer.append(UInt32(counts.count))
        writer.appendInts(counts.map { Int64($0) })
        writer.append(elements.type.rawValue)
        return NodeImage(kind: NodeKind.collectionInner.rawValue, children: children.map(\.offset), payload: writer.takeBytes())
    }

    @usableFromInline package func mutableCopy() -> CollectionNode {
        isLeaf ? CollectionNode(elements: elements, mapKeys: mapKeys)
               : CollectionNode(counts: counts, children: children, elementType: elements.type)
    }

    @usableFromInline package func forEachChild(_ body: (AnyNodeRef) throws -> Void) rethrows {
        for child in children { try body(child) }
    }

    @usableFromInline package func childSlots() -> [AnyNodeRef?] { children }

    @usableFromInline package func persistChangedChildren(into chunk: inout ChunkBuilder?) {
        children.persistChanged(into: &chunk)
    }
}
