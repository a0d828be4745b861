@_spi(Engine) import FloeStorage

/// A column written as one row's change to the column it was copied from.
///
/// A commit that adds, changes or removes one object rewrites the path to its leaf, and the
/// leaf's columns with it; written whole, each column costs its every row's bytes and their
/// checksum again (a leaf holds up to 128 rows, 256 in files written before). When a mutable column differs from the
/// written column it was copied from in a single row, its image is that row's change instead,
/// on top of the written column (its one child):
///
/// ```
/// u8  edit      1 insert, 2 replace, 3 remove
/// u8  depth     column changes from this one down to the whole image under them (1...maximumChangeDepth)
/// u16 zero
/// u32 row
/// insert, replace: the row's value, as a one-row column encoding of the column's layout and type (words unpacked)
/// ```
///
/// Reading one reads the changes down to the whole image and applies them upwards. A stack
/// is never deeper than ``maximumChangeDepth``: the next change is written as a whole image, so
/// a column never takes more than `maximumChangeDepth + 1` reads. Nodes stay in memory once read, so
/// only the first read of a column after open pays for its stack.
extension ColumnNode {
    /// The most column changes stacked on one whole image.
    package static let maximumChangeDepth = 4

    package enum RowEdit: UInt8 {
        case insert = 1
        case replace = 2
        case remove = 3
    }

    /// The change this column's image describes: the written column it was copied from, and
    /// its one row edit, when it differs from it in one row and the stack under that one has
    /// room; nil: write it whole. Either way the column it was copied from is let go of.
    package func changeToWrite() -> (baseOffset: UInt64, edit: RowEdit, row: Int)? {
        guard let (base, baseOffset) = copiedFrom else { return nil }
        copiedFrom = nil
        guard base.changeDepth < Self.maximumChangeDepth, let (edit, row) = storage.singleRowEdit(from: base.storage) else {
            changeDepth = 0
            baseStoredSize = 0
            return nil
        }
        changeDepth = base.changeDepth + 1
        baseStoredSize = base.storedSize
        return (baseOffset, edit, row)
    }

    /// The payload of a change node for `edit` of row `row` (this column's depth already set).
    package func writeChangePayload(_ edit: RowEdit, row: Int, into writer: inout ByteWriter) {
        writer.append(edit.rawValue)
        writer.append(UInt8(changeDepth))
        writer.append(UInt16(0))
        writer.append(UInt32(row))
        if edit != .remove { storage.encodeRow(row, into: &writer) }
    }

    /// ``changeToWrite()`` as a node image.
    package func imageAsChange() -> NodeImage? {
        guard let (baseOffset, edit, row) = changeToWrite() else { return nil }
        var writer = ByteWriter(capacity: 48)
        writeChangePayload(edit, row: row, into: &writer)
        return NodeImage(kind: NodeKind.columnChange.rawValue, children: [baseOffset], payload: writer.takeBytes())
    }

    /// Reads a column change: the changes under it down to the whole image, then applies them.
    package static func decodeChange(_ image: NodeImage, source: StorageFile) throws(DecodeFailure) -> ColumnNode {
        struct Change {
            let edit: RowEdit
            let row: Int
            let value: ColumnStorage?
        }
        var changes: [Change] = []
        var current = image
        var currentOffset = UInt64.max
        var bytesUnder = 0
        var topDepth = 0
        while current.kind == NodeKind.columnChange.rawValue {
            guard current.children.count == 1 else { throw DecodeFailure("a column change has \(current.children.count) children, not 1") }
            var reader = ByteReader(current.payload)
            let change: Change
            let depth: Int
            do {
                guard let edit = RowEdit(rawValue: try reader.read(UInt8.self)) else { throw DecodeFailure("unknown column change edit") }
                depth = Int(try reader.read(UInt8.self))
                _ = try reader.read(UInt16.self)
                let row = Int(try reader.read(UInt32.self))
                let value = edit == .remove ? nil : try ColumnStorage.decode(from: &reader, children: [], source: nil)
                change = Change(edit: edit, row: row, value: value)
            } catch let failure as DecodeFailure {
                throw failure
            } catch {
                throw DecodeFailure("column change data ends early")
            }
            // Each change stands on one a level less deep, written before it: a damaged or
            // looping chain fails here instead of running on.
            let due = changes.isEmpty ? depth : topDepth - changes.count
            guard depth >= 1, depth <= maximumChangeDepth, depth == due else {
                throw DecodeFailure("a column change claims depth \(depth) where \(changes.isEmpty ? "1...\(maximumChangeDepth)" : "\(due)") was due")
            }
            if changes.isEmpty { topDepth = depth }
            changes.append(change)
            let baseOffset = current.children[0]
            guard baseOffset < currentOffset else { throw DecodeFailure("a column change points forward, to offset \(baseOffset)") }
            currentOffset = baseOffset
            do {
                current = try source.readNode(at: baseOffset)
            } catch {
                throw DecodeFailure("the column under a column change, at offset \(baseOffset): \(error)")
            }
            bytesUnder += current.encodedSize
        }
        guard changes.count == topDepth else {
            throw DecodeFailure("a column change claims depth \(topDepth) but stands on \(changes.count - 1) changes")
        }
        guard current.kind == NodeKind.column.rawValue else {
            throw DecodeFailure("a column change stands on a node of kind \(current.kind), not a column")
        }
        var reader = ByteReader(current.payload)
        var storage = try ColumnStorage.decode(from: &reader, children: current.children[...], source: source)
        guard storage.layout != .collections else { throw DecodeFailure("a column change stands on a collection column") }
        for change in changes.reversed() {
            try storage.apply(change.edit, at: change.row, value: change.value)
        }
        let node = ColumnNode(storage: storage, isMutable: false)
        node.changeDepth = changes.count
        node.baseStoredSize = bytesUnder
        return node
    }
}
