/// One-row differences between two columns, bit for bit: what a column change node
/// (`ColumnNode+Changes.swift`) writes and reads back.
extension ColumnStorage {
    /// The one row insert, replace or remove that turns `base` into this column, exactly (every
    /// bit of every row, null flags included); nil when it takes more, or when the column's
    /// layout is not one a change is written for (mixed values compare by value, not by bits,
    /// and collection columns hold child references).
    func singleRowEdit(from base: ColumnStorage) -> (edit: ColumnNode.RowEdit, row: Int)? {
        guard layout == base.layout, type == base.type, (nulls == nil) == (base.nulls == nil),
              layout != .values, layout != .collections else { return nil }
        let common = Swift.min(count, base.count)
        var first = 0
        while first < common && sameRow(first, in: base, at: first) { first += 1 }
        switch count - base.count {
        case 0:
            // Unchanged entirely (a write that set the same values): a replace of the first row.
            if first == common { return common == 0 ? nil : (.replace, 0) }
            for row in first + 1..<count where !sameRow(row, in: base, at: row) { return nil }
            return (.replace, first)
        case 1:
            for row in first..<base.count where !sameRow(row + 1, in: base, at: row) { return nil }
            return (.insert, first)
        case -1:
            for row in first..<count where !sameRow(row, in: base, at: row + 1) { return nil }
            return (.remove, first)
        default:
            return nil
        }
    }

    /// Whether row `row` holds exactly the bits `base` holds at `baseRow` (same layout and type).
    @inline(__always)
    private func sameRow(_ row: Int, in base: ColumnStorage, at baseRow: Int) -> Bool {
        if let nulls, nulls[row] != base.nulls![baseRow] { return false }
        switch layout {
        case .words: return words[row] == base.words[baseRow]
        case .pairs: return words[2 * row] == base.words[2 * baseRow] && words[2 * row + 1] == base.words[2 * baseRow + 1]
        case .strings: return Self.sameBytes(strings[row], base.strings[baseRow])
        case .binaries: return binaries[row] == base.binaries[baseRow]
        case .values, .collections: return false
        }
    }

    /// Whether two strings hold the same UTF-8 bytes (`==` compares canonical equivalence,
    /// under which different bytes can be equal). The same string value, the usual case here
    /// (a row a copy shares with the column it was copied from), is told by its bits alone.
    private static func sameBytes(_ left: String, _ right: String) -> Bool {
        if MemoryLayout<String>.size == 2 * MemoryLayout<UInt64>.size {
            let leftBits = unsafeBitCast(left, to: (UInt64, UInt64).self)
            let rightBits = unsafeBitCast(right, to: (UInt64, UInt64).self)
            if leftBits == rightBits { return true }
        }
        return left.utf8.elementsEqual(right.utf8)
    }

    /// Row `row` alone, as a one-row column encoding of this column's layout, type and
    /// nullability (words unpacked: one word packs to no fewer bytes, and layout 1 reads back
    /// as packed words do). Only for the layouts ``singleRowEdit(from:)`` answers for.
    func encodeRow(_ row: Int, into writer: inout ByteWriter) {
        writer.append(layout.rawValue)
        writer.append(type.rawValue)
        writer.append(UInt8(nulls == nil ? 0 : 1))
        writer.append(UInt8(0))
        writer.append(UInt32(1))
        if let nulls { writer.append(UInt8(nulls[row] ? 1 : 0)) }
        switch layout {
        case .words: writer.append(words[row])
        case .pairs:
            writer.append(words[2 * row])
            writer.append(words[2 * row + 1])
        case .strings: writer.appendString(strings[row])
        case .binaries:
            writer.append(UInt32(binaries[row].count))
            writer.append(binaries[row])
        case .values, .collections: preconditionFailure("a one-row change of a \(layout) column")
        }
    }

    /// Applies a change read back from a file: `value` (one row, for insert and replace) goes in
    /// at `row`, or row `row` goes.
    mutating func apply(_ edit: ColumnNode.RowEdit, at row: Int, value: ColumnStorage?) throws(DecodeFailure) {
        guard layout != .values, layout != .collections else { throw DecodeFailure("a column change on a \(layout) column") }
        if edit == .remove {
            guard row < count else { throw DecodeFailure("a column change removes row \(row) of \(count)") }
            remove(at: row)
            return
        }
        guard let value, value.count == 1, value.layout == layout, value.type == type, (value.nulls == nil) == (nulls == nil) else {
            throw DecodeFailure("a column change's value is not one row of the column's layout and type")
        }
        guard edit == .insert ? row <= count : row < count else {
            throw DecodeFailure("a column change \(edit == .insert ? "inserts at" : "replaces") row \(row) of \(count)")
        }
        if edit == .insert {
            if nulls != nil { nulls!.insert(value.nulls![0], at: row) }
            switch layout {
            case .words: words.insert(value.words[0], at: row)
            case .pairs: words.insert(contentsOf: value.words, at: 2 * row)
            case .strings: strings.insert(value.strings[0], at: row)
            case .binaries: binaries.insert(value.binaries[0], at: row)
            case .values, .collections: break
            }
            count += 1
        } else {
            if nulls != nil { nulls![row] = value.nulls![0] }
            switch layout {
            case .words: words[row] = value.words[0]
            case .pairs: words[2 * row] = value.words[0]; words[2 * row + 1] = value.words[1]
            case .strings: strings[row] = value.strings[0]
            case .binaries: binaries[row] = value.binaries[0]
            case .values, .collections: break
            }
        }
    }
}
