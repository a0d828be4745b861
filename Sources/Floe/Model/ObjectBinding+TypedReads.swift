import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Typed reads of a managed object's properties. A read of a property of a plain type (the
// integers, Double, Float, Bool, String, Date and their optionals) on a version where nothing
// happened since the object's row was last confirmed costs a compare of the read epoch and a
// load from the leaf's typed column: no `Value`, no `_FloeValue`, no call through the source.
// Anything else (another type, a row not confirmed, a column not in memory or damaged) takes
// the checked read, `read(column:)`, which finds the row again, loads, and records damage.

extension ObjectBinding {
    /// The value of `column` as `V`: the one read `@Persisted` getters and class projections
    /// make. Inlined into the caller, where `V` is known, so the type tests below fold away
    /// and a plain type goes straight to its typed read.
    @inlinable @inline(__always)
    func read<V: _Persistable>(column: Int, as type: V.Type) -> V {
        if let value = readPlain(column: column, as: V.self) { return value }
        return V._floeRead(_FloeColumnRead(binding: self, column: column))
    }

    /// The value of `column` by its plain type's typed read, or nil when `V` is not a plain
    /// type. Inlined where `V` is known, so the type tests fold away.
    @inlinable @inline(__always)
    func readPlain<V>(column: Int, as type: V.Type) -> V? {
        if V.self == Int.self { return unsafeBitCast(readInt(column: column), to: V.self) }
        if V.self == String.self { return unsafeBitCast(readString(column: column), to: V.self) }
        if V.self == Double.self { return unsafeBitCast(readDouble(column: column), to: V.self) }
        if V.self == Bool.self { return unsafeBitCast(readBool(column: column), to: V.self) }
        if V.self == Int64.self { return unsafeBitCast(Int64(readInt(column: column)), to: V.self) }
        if V.self == Date.self { return unsafeBitCast(readDate(column: column), to: V.self) }
        if V.self == Float.self { return unsafeBitCast(readFloat(column: column), to: V.self) }
        if V.self == Int?.self { return unsafeBitCast(readOptionalInt(column: column), to: V.self) }
        if V.self == String?.self { return unsafeBitCast(readOptionalString(column: column), to: V.self) }
        if V.self == Double?.self { return unsafeBitCast(readOptionalDouble(column: column), to: V.self) }
        if V.self == Bool?.self { return unsafeBitCast(readOptionalBool(column: column), to: V.self) }
        if V.self == Date?.self { return unsafeBitCast(readOptionalDate(column: column), to: V.self) }
        return nil
    }

    // Each read below is inlined into the caller: the trusted read is one call to a function
    // that releases nothing (`@_effects(releasenone)`, which is true of the trusted reads: they
    // only load, and copy a string out), and the checked read is another, out of line. So the
    // caller's compiler knows that the common path releases nothing, and the retain and release
    // of an object handed out by a walk (`for dog in results { sum += dog.age }`) move onto the
    // checked read's path instead of costing two atomic operations per object.

    @inlinable
    func readInt(column: Int) -> Int {
        if let (word, isNull) = trustedWord(ofIntColumn: column) { return isNull ? 0 : Int(truncatingIfNeeded: Int64(bitPattern: word)) }
        return checkedRead(column: column, as: Int.self)
    }

    @inlinable
    func readOptionalInt(column: Int) -> Int? {
        if let (word, isNull) = trustedWord(ofIntColumn: column) { return isNull ? nil : Int(truncatingIfNeeded: Int64(bitPattern: word)) }
        return checkedRead(column: column, as: Int?.self)
    }

    @inlinable
    func readDouble(column: Int) -> Double {
        if let (word, isNull) = trustedWord(ofDoubleColumn: column) { return isNull ? 0 : Double(bitPattern: word) }
        return checkedRead(column: column, as: Double.self)
    }

    @inlinable
    func readOptionalDouble(column: Int) -> Double? {
        if let (word, isNull) = trustedWord(ofDoubleColumn: column) { return isNull ? nil : Double(bitPattern: word) }
        return checkedRead(column: column, as: Double?.self)
    }

    @inlinable
    func readFloat(column: Int) -> Float {
        if let (word, isNull) = trustedWord(ofFloatColumn: column) { return isNull ? 0 : Float(bitPattern: UInt32(truncatingIfNeeded: word)) }
        return checkedRead(column: column, as: Float.self)
    }

    @inlinable
    func readBool(column: Int) -> Bool {
        if let (word, isNull) = trustedWord(ofBoolColumn: column) { return !isNull && word != 0 }
        return checkedRead(column: column, as: Bool.self)
    }

    @inlinable
    func readOptionalBool(column: Int) -> Bool? {
        if let (word, isNull) = trustedWord(ofBoolColumn: column) { return isNull ? nil : word != 0 }
        return checkedRead(column: column, as: Bool?.self)
    }

    @inlinable
    func readDate(column: Int) -> Date {
        if let (word, isNull) = trustedWord(ofTimestampColumn: column) {
            return Date(timeIntervalSinceReferenceDate: isNull ? 0 : Double(bitPattern: word))
        }
        return checkedRead(column: column, as: Date.self)
    }

    @inlinable
    func readOptionalDate(column: Int) -> Date? {
        if let (word, isNull) = trustedWord(ofTimestampColumn: column) {
            return isNull ? nil : Date(timeIntervalSinceReferenceDate: Double(bitPattern: word))
        }
        return checkedRead(column: column, as: Date?.self)
    }

    @inlinable
    func readString(column: Int) -> String {
        if let (string, _) = trustedStringValue(column) { return string }
        return checkedRead(column: column, as: String.self)
    }

    @inlinable
    func readOptionalString(column: Int) -> String? {
        if let (string, isNull) = trustedStringValue(column) { return isNull ? nil : string }
        return checkedRead(column: column, as: String?.self)
    }

    // The trusted reads, one per column type (the type itself is not visible to inlined code).
    // Never inlined: their promise to release nothing holds for the call, which is what the
    // caller's compiler sees. Each answers nil when the checked read must answer instead.

    @usableFromInline @inline(never) @_effects(releasenone)
    func trustedWord(ofIntColumn column: Int) -> (word: UInt64, isNull: Bool)? { trustedWord(column, .int) }

    @usableFromInline @inline(never) @_effects(releasenone)
    func trustedWord(ofDoubleColumn column: Int) -> (word: UInt64, isNull: Bool)? { trustedWord(column, .double) }

    @usableFromInline @inline(never) @_effects(releasenone)
    func trustedWord(ofFloatColumn column: Int) -> (word: UInt64, isNull: Bool)? { trustedWord(column, .float) }

    @usableFromInline @inline(never) @_effects(releasenone)
    func trustedWord(ofBoolColumn column: Int) -> (word: UInt64, isNull: Bool)? { trustedWord(column, .bool) }

    @usableFromInline @inline(never) @_effects(releasenone)
    func trustedWord(ofTimestampColumn column: Int) -> (word: UInt64, isNull: Bool)? { trustedWord(column, .timestamp) }

    @usableFromInline @inline(never) @_effects(releasenone)
    func trustedStringValue(_ column: Int) -> (string: String, isNull: Bool)? { trustedString(column) }

    /// The checked read of `column` as the plain type `V`: finds the row again, loads, and
    /// records damage (see ``read(column:)``). Out of line: the uncommon path.
    @usableFromInline @inline(never)
    func checkedRead<V: _Persistable>(column: Int, as type: V.Type) -> V {
        V._floeDecode(read(column: column))
    }
}

/// One stored value about to be read, handed to ``_Persistable/_floeRead(_:)`` so that a type
/// projection can read its persisted type by that type's typed read. Not for use outside Floe.
///
/// ```swift
/// static func _floeRead(_ read: _FloeColumnRead) -> Self { _floeDecode(read.stored) }
/// ```
public struct _FloeColumnRead {
    @usableFromInline let binding: ObjectBinding
    @usableFromInline let column: Int

    @usableFromInline
    init(binding: ObjectBinding, column: Int) {
        self.binding = binding
        self.column = column
    }

    /// The stored value, untyped (the checked read).
    public var stored: _FloeValue { binding.read(column: column) }

    /// The stored value read as the plain type `P` (an integer, `Double`, `Float`, `Bool`,
    /// `String`, `Date` or their optionals); nil for any other type.
    @inlinable
    public func plainValue<P>(as type: P.Type) -> P? {
        binding.readPlain(column: column, as: P.self)
    }
}

// Typed writes: a setter of a plain one-word property (Int, Int64, Double, Float, Bool, Date
// and the optionals of Int, Double, Bool and Date) whose row sits in a leaf the open write
// already owns writes the word in place.
// Everything else (another type, a row not owned yet, a key, an indexed or narrower column,
// no open write) takes the checked write, `write(_:column:)`, as before.

extension ObjectBinding {
    /// Sets `column` to `value`: the one write `@Persisted` setters make. Inlined into the
    /// caller, where `V` is known, so a plain type goes straight to its typed write.
    @inlinable @inline(__always)
    func write<V: _Persistable>(_ value: V, column: Int) {
        if V.self == Int.self { return writeInt(unsafeBitCast(value, to: Int.self), column: column) }
        if V.self == Double.self { return writeDouble(unsafeBitCast(value, to: Double.self), column: column) }
        if V.self == Bool.self { return writeBool(unsafeBitCast(value, to: Bool.self), column: column) }
        if V.self == Int64.self { return writeInt(Int(unsafeBitCast(value, to: Int64.self)), column: column) }
        if V.self == Int?.self { return writeOptionalInt(unsafeBitCast(value, to: Int?.self), column: column) }
        if V.self == Double?.self { return writeOptionalDouble(unsafeBitCast(value, to: Double?.self), column: column) }
        if V.self == Date.self { return writeDate(unsafeBitCast(value, to: Date.self), column: column) }
        if V.self == Float.self { return writeFloat(unsafeBitCast(value, to: Float.self), column: column) }
        if V.self == Bool?.self { return writeOptionalBool(unsafeBitCast(value, to: Bool?.self), column: column) }
        if V.self == Date?.self { return writeOptionalDate(unsafeBitCast(value, to: Date?.self), column: column) }
        write(value._floeEncoded, column: column)
    }

    /// Writes one word in place when the trusted row's leaf is the open write's own; false:
    /// nothing was written, take the checked write.
    @inline(__always)
    private func writeInPlace(_ word: UInt64, isNull: Bool, type: ColumnType, column: Int) -> Bool {
        writeWordInPlace(word, isNull: isNull, type: type, column: column)
    }

    @usableFromInline
    func writeInt(_ value: Int, column: Int) {
        if writeInPlace(UInt64(bitPattern: Int64(value)), isNull: false, type: .int, column: column) { return }
        write(value._floeEncoded, column: column)
    }

    @usableFromInline
    func writeOptionalInt(_ value: Int?, column: Int) {
        if writeInPlace(UInt64(bitPattern: Int64(value ?? 0)), isNull: value == nil, type: .int, column: column) { return }
        write(value._floeEncoded, column: column)
    }

    @usableFromInline
    func writeDouble(_ value: Double, column: Int) {
        if writeInPlace(value.bitPattern, isNull: false, type: .double, column: column) { return }
        write(value._floeEncoded, column: column)
    }

    @usableFromInline
    func writeOptionalDouble(_ value: Double?, column: Int) {
        if writeInPlace(value?.bitPattern ?? 0, isNull: value == nil, type: .double, column: column) { return }
        write(value._floeEncoded, column: column)
    }

    @usableFromInline
    func writeBool(_ value: Bool, column: Int) {
        if writeInPlace(value ? 1 : 0, isNull: false, type: .bool, column: column) { return }
        write(value._floeEncoded, column: column)
    }

    @usableFromInline
    func writeOptionalBool(_ value: Bool?, column: Int) {
        if writeInPlace(value == true ? 1 : 0, isNull: value == nil, type: .bool, column: column) { return }
        write(value._floeEncoded, column: column)
    }

    @usableFromInline
    func writeFloat(_ value: Float, column: Int) {
        if writeInPlace(UInt64(value.bitPattern), isNull: false, type: .float, column: column) { return }
        write(value._floeEncoded, column: column)
    }

    @usableFromInline
    func writeDate(_ value: Date, column: Int) {
        if writeInPlace(value.timeIntervalSinceReferenceDate.bitPattern, isNull: false, type: .timestamp, column: column) { return }
        write(value._floeEncoded, column: column)
    }

    @usableFromInline
    func writeOptionalDate(_ value: Date?, column: Int) {
        if writeInPlace(value?.timeIntervalSinceReferenceDate.bitPattern ?? 0, isNull: value == nil, type: .timestamp, column: column) { return }
        write(value._floeEncoded, column: column)
    }
}
