@_spi(Engine) import FloeStorage

/// One-row differences between two columns, bit for bit: what a column change node
/// (`ColumnNode+Changes.swift`) writes and reads back.
extension ColumnStorage {
    /// The one row insert, replace or remove that turns `base` into this column, exactly (every
    /// bit of every row, null flags included); nil when it takes more, or when the column's
    /// layout is not one a change is written for (mixed values compare by value, not by bits,
    /// and collection columns hold child references).
    ///
    /// Rows are compared by their stored bits, strings and binaries too: equal bits are the
    /// same bytes (the same storage, or the same small string). Rows that hold the same bytes
    /// in other bits read as changed, and such a column is written whole: never wrong, at worst
    /// larger. The columns' memory is compared in bulk, not row by row.
    package func singleRowEdit(from base: ColumnStorage) -> (edit: ColumnNode.RowEdit, row: Int)? {
        guard layout == base.layout, type == base.type, (nulls == nil) == (base.nulls == nil),
              layout != .values, layout != .collections else { return nil }
        let shift = count - base.count
        guard abs(shift) <= 1 else { return nil }
        let common = Swift.min(count, base.count)
        let first = matchingRows(from: 0, in: base, from: 0, count: common)
        func rowsMatch(from start: Int, baseFrom baseStart: Int) -> Bool {
            matchingRows(from: start, in: base, from: baseStart, count: count - start) == count - start
        }
        switch shift {
        case 0:
            // Unchanged entirely (a write that set the same values): a replace of the first row.
            if first == common { return common == 0 ? nil : (.replace, 0) }
            return rowsMatch(from: first + 1, baseFrom: first + 1) ? (.replace, first) : nil
        case 1:
            return rowsMatch(from: first + 1, baseFrom: first) ? (.insert, first) : nil
        default:
            return rowsMatch(from: first, baseFrom: first + 1) ? (.remove, first) : nil
        }
    }

    /// How many of `count` rows from `start` hold exactly the bits (values and null flags)
    /// `base` holds from row `baseStart` on, before the first that does not (`count` if all do).
    private func matchingRows(from start: Int, in base: ColumnStorage, from baseStart: Int, count: Int) -> Int {
        guard count > 0 else { return 0 }
        let values: Int
        switch layout {
        case .words: values = Self.firstDifference(words, start, base.words, baseStart, count: count)
        case .pairs: values = Self.firstDifference(words, 2 * start, base.words, 2 * baseStart, count: 2 * count) / 2
        case .strings: values = Self.firstDifference(strings, start, base.strings, baseStart, count: count)
        case .binaries: values = Self.firstDifference(binaries, start, base.binaries, baseStart, count: count)
        case .values, .collections: return 0
        }
        guard let nulls else { return values }
        return Swift.min(values, Self.firstDifference(nulls, start, base.nulls!, baseStart, count: values))
    }

    /// How many of `count` elements of `left` from `leftStart` have the same bits as those of
    /// `right` from `rightStart` before the first that does not (`count` if all do): their
    /// memory compared eight bytes at a time.
    private static func firstDifference<Element>(_ left: [Element], _ leftStart: Int, _ right: [Element], _ rightStart: Int,
                                                 count: Int) -> Int {
        precondition(leftStart >= 0 && rightStart >= 0 && count >= 0 && leftStart + count <= left.count && rightStart + count <= right.count,
                     "rows \(leftStart)..<\(leftStart + count) and \(rightStart)..<\(rightStart + count) of columns of \(left.count) and \(right.count) rows")
        guard count > 0 else { return 0 }
        let stride = MemoryLayout<Element>.stride
        let bytes = count * stride
        return left.withUnsafeBytes { leftBytes in
            right.withUnsafeBytes { rightBytes in
                let leftBase = leftBytes.baseAddress! + leftStart * stride
                let rightBase = rightBytes.baseAddress! + rightStart * stride
                var offset = 0
                while offset + 8 <= bytes,
                      leftBase.loadUnaligned(fromByteOffset: offset, as: UInt64.self) == rightBase.loadUnaligned(fromByteOffset: offset, as: UInt64.self) {
                    offset += 8
                }
                while offset < bytes, leftBase.load(fromByteOffset: offset, as: UInt8.self) == rightBase.load(fromByteOffset: offset, as: UInt8.self) {
                    offset += 1
                }
                return offset / stride
            }
        }
    }

    /// Row `row` alone, as a one-row column encoding of this column's layout, type and
    /// nullability (words unpacked: one word packs to no fewer bytes, and layout 1 reads back
    /// as packed words do). Only for the layouts ``singleRowEdit(from:)`` answers for.
    package func encodeRow(_ row: Int, into writer: inout ByteWriter) {
        appendHeader(layoutTag: layout.rawValue, rows: 1, into: &writer)
        if let nulls { writer.append(UInt8(nulls[row] ? 1 : 0)) }  // the one row's null bit
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
    package mutating func apply(_ edit: ColumnNode.RowEdit, at row: Int, value: ColumnStorage?) throws(DecodeFailure) {
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
