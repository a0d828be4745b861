@_spi(Engine) import FloeStorage

/// One column's values for the rows of one leaf, as a typed contiguous array.
///
/// Only the array that matches `layout` is used; the others stay empty (and so cost no
/// allocation). Fixed-width values are raw 64-bit words so that scans and aggregates run
/// over contiguous memory.
@usableFromInline package struct ColumnStorage {
    /// Written in every column node's image: each raw value spelled out (pinned by a test).
    @usableFromInline package enum Layout: UInt8, CaseIterable {
        /// bool, int, float, double, timestamp, link: one word per row.
        case words = 1
        /// decimal128, objectId, uuid: two words per row (high, low).
        case pairs = 2
        case strings = 3
        case binaries = 4
        /// mixed: one ``Value`` per row.
        case values = 5
        /// list, set and map columns: one collection root per row (nil: empty).
        case collections = 6

        package init(elementType: ColumnType) {
            switch elementType {
            case .bool, .int, .float, .double, .timestamp, .link: self = .words
            case .decimal128, .objectId, .uuid: self = .pairs
            case .string: self = .strings
            case .binary: self = .binaries
            case .mixed: self = .values
            }
        }
    }

    @usableFromInline package let layout: Layout
    /// The type of the values (for collections: of the elements).
    @_spi(Engine) public let type: ColumnType
    @usableFromInline package var words: [UInt64] = []
    @usableFromInline package var strings: [String] = []
    package var binaries: [[UInt8]] = []
    package var values: [Value] = []
    package var collections: [NodeRef<CollectionNode>?] = []
    /// Per-row null flags; nil when the column cannot hold null.
    @usableFromInline package var nulls: [Bool]?
    @usableFromInline package var count = 0

    package init(layout: Layout, type: ColumnType, nullable: Bool) {
        self.layout = layout
        self.type = type
        nulls = nullable && layout != .values && layout != .collections ? [] : nil
    }

    package init(elementType: ColumnType, nullable: Bool) {
        self.init(layout: Layout(elementType: elementType), type: elementType, nullable: nullable)
    }

    // MARK: Reading

    package func isNull(at index: Int) -> Bool {
        if let nulls { return nulls[index] }
        if layout == .values { return values[index] == .null }
        return false
    }

    package func value(at index: Int) -> Value {
        if let nulls, nulls[index] { return .null }
        switch layout {
        case .words: return Self.decodeWord(words[index], type: type)
        case .pairs: return Self.decodePair(Word128(high: words[2 * index], low: words[2 * index + 1]), type: type)
        case .strings: return .string(strings[index])
        case .binaries: return .binary(binaries[index])
        case .values: return values[index]
        case .collections: preconditionFailure("a collection column has no single value at row \(index)")
        }
    }

    /// Whether row `index` holds the value `other` holds at `otherIndex`, as `value(at:)`
    /// would compare, without building the values for integers, booleans, links and strings.
    package func holdsSameValue(at index: Int, as other: ColumnStorage, at otherIndex: Int) -> Bool {
        guard layout == other.layout, type == other.type else { return value(at: index) == other.value(at: otherIndex) }
        let null = isNull(at: index)
        if null || other.isNull(at: otherIndex) { return null == other.isNull(at: otherIndex) }
        switch (layout, type) {
        case (.words, .int), (.words, .bool), (.words, .link): return words[index] == other.words[otherIndex]
        case (.strings, _): return strings[index] == other.strings[otherIndex]
        default: return value(at: index) == other.value(at: otherIndex)
        }
    }

    @inline(__always)
    package func int(at index: Int) -> Int64 { Int64(bitPattern: words[index]) }

    // MARK: Writing

    /// Appends a value already checked against the column (see ``ValueCheck``).
    package mutating func append(_ value: Value) { insert(value, at: count) }

    /// Appends one row of a one-word column (`word` 0 for null), with no ``Value`` in between.
    @inlinable @inline(__always)
    package mutating func appendWord(_ word: UInt64, isNull: Bool) {
        if nulls != nil { nulls!.append(isNull) }
        words.append(word)
        count += 1
    }

    /// Appends one row of a string column (`string` empty for null).
    @inlinable @inline(__always)
    package mutating func appendString(_ string: String, isNull: Bool) {
        if nulls != nil { nulls!.append(isNull) }
        strings.append(string)
        count += 1
    }

    /// Makes room for `rows` rows in the arrays this layout uses, so that rows appended one at
    /// a time up to that count grow nothing.
    package mutating func reserveRows(_ rows: Int) {
        if nulls != nil { nulls!.reserveCapacity(rows) }
        switch layout {
        case .words: words.reserveCapacity(rows)
        case .pairs: words.reserveCapacity(2 * rows)
        case .strings: strings.reserveCapacity(rows)
        case .binaries: binaries.reserveCapacity(rows)
        case .values: values.reserveCapacity(rows)
        case .collections: collections.reserveCapacity(rows)
        }
    }

    package mutating func insert(_ value: Value, at index: Int) {
        let isNull = value == .null
        if nulls != nil { nulls!.insert(isNull, at: index) }
        switch layout {
        case .words: words.insert(isNull ? 0 : Self.encodeWord(value), at: index)
        case .pairs:
            let pair = isNull ? Word128(high: 0, low: 0) : Self.encodePair(value)
            words.insert(contentsOf: [pair.high, pair.low], at: 2 * index)
        case .strings:
            if case .string(let string) = value { strings.insert(string, at: index) } else { strings.insert("", at: index) }
        case .binaries:
            if case .binary(let bytes) = value { binaries.insert(bytes, at: index) } else { binaries.insert([], at: index) }
        case .values: values.insert(value, at: index)
        case .collections: collections.insert(nil, at: index)
        }
        count += 1
    }

    package mutating func set(_ value: Value, at index: Int) {
        let isNull = value == .null
        if nulls != nil { nulls![index] = isNull }
        switch layout {
        case .words: words[index] = isNull ? 0 : Self.encodeWord(value)
        case .pairs:
            let pair = isNull ? Word128(high: 0, low: 0) : Self.encodePair(value)
            words[2 * index] = pair.high
            words[2 * index + 1] = pair.low
        case .strings:
            if case .string(let string) = value { strings[index] = string } else { strings[index] = "" }
        case .binaries:
            if case .binary(let bytes) = value { binaries[index] = bytes } else { binaries[index] = [] }
        case .values: values[index] = value
        case .collections: preconditionFailure("set(_:at:) on a collection column")
        }
    }

    package mutating func remove(at index: Int) {
        if nulls != nil { nulls!.remove(at: index) }
        switch layout {
        case .words: words.remove(at: index)
        case .pairs: words.removeSubrange(2 * index..<2 * index + 2)
        case .strings: strings.remove(at: index)
        case .binaries: binaries.remove(at: index)
        case .values: values.remove(at: index)
        case .collections: collections.remove(at: index)
        }
        count -= 1
    }

    /// Moves rows `index...` into a new storage and returns it.
    package mutating func split(at index: Int) -> ColumnStorage {
        var tail = ColumnStorage(layout: layout, type: type, nullable: false)
        if let nulls {
            tail.nulls = Array(nulls[index...])
            self.nulls!.removeSubrange(index...)
        }
        switch layout {
        case .words: tail.words = Array(words[index...]); words.removeSubrange(index...)
        case .pairs: tail.words = Array(words[(2 * index)...]); words.removeSubrange((2 * index)...)
        case .strings: tail.strings = Array(strings[index...]); strings.removeSubrange(index...)
        case .binaries: tail.binaries = Array(binaries[index...]); binaries.removeSubrange(index...)
        case .values: tail.values = Array(values[index...]); values.removeSubrange(index...)
        case .collections: tail.collections = Array(collections[index...]); collections.removeSubrange(index...)
        }
        tail.count = count - index
        count = index
        return tail
    }

    /// Appends all rows of `other` (same layout).
    package mutating func append(contentsOf other: ColumnStorage) {
        if nulls != nil { nulls!.append(contentsOf: other.nulls ?? [Bool](repeating: false, count: other.count)) }
        words.append(contentsOf: other.words)
        strings.append(contentsOf: other.strings)
        binaries.append(contentsOf: other.binaries)
        values.append(contentsOf: other.values)
        collections.append(contentsOf: other.collections)
        count += other.count
    }

    package mutating func setCollection(_ root: NodeRef<CollectionNode>?, at index: Int) {
        collections[index] = root
    }

    // MARK: Word encodings

    package static func encodeWord(_ value: Value) -> UInt64 {
        switch value {
        case .bool(let flag): return flag ? 1 : 0
        case .int(let int): return UInt64(bitPattern: int)
        case .float(let float): return UInt64(float.bitPattern)
        case .double(let double): return double.bitPattern
        case .timestamp(let seconds): return seconds.bitPattern
        case .link(let key): return UInt64(bitPattern: key)
        default: preconditionFailure("\(value.debugText) is not a one-word value")
        }
    }

    package static func decodeWord(_ word: UInt64, type: ColumnType) -> Value {
        switch type {
        case .bool: return .bool(word != 0)
        case .int: return .int(Int64(bitPattern: word))
        case .float: return .float(Float(bitPattern: UInt32(truncatingIfNeeded: word)))
        case .double: return .double(Double(bitPattern: word))
        case .timestamp: return .timestamp(Double(bitPattern: word))
        case .link: return .link(Int64(bitPattern: word))
        default: preconditionFailure("\(type) is not a one-word type")
        }
    }

    package static func encodePair(_ value: Value) -> Word128 {
        switch value {
        case .decimal128(let word), .objectId(let word), .uuid(let word): return word
        default: preconditionFailure("\(value.debugText) is not a two-word value")
        }
    }

    package static func decodePair(_ word: Word128, type: ColumnType) -> Value {
        switch type {
        case .decimal128: return .decimal128(word)
        case .objectId: return .objectId(word)
        case .uuid: return .uuid(word)
        default: preconditionFailure("\(type) is not a two-word type")
        }
    }
}
