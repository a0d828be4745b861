@_spi(Engine) import FloeStorage

/// The fast lane: the one way a floor above the engine reads and writes a row without a call
/// into the engine and without reference counting. A managed object's link to its row
/// (`ObjectBinding`, in `Floe`) adopts it; nothing else above the engine does.
///
/// The lane is the exception to the engine's boundary, and the only one. A conformer keeps
/// the row where its object was last found (a ``RowPosition``), the store's read epoch
/// unretained (``LaneEpoch``) and the open write transaction unretained (``LaneWriter``), and
/// reads and writes one-word values and strings in the leaf that row sits in. Everything here
/// is inlinable: a release build optimises each target on its own, so the engine's code for a
/// property read or an in-place write must be compiled into the caller, as it was when the
/// engine and the objects were one module. Everywhere else the floors above reach the engine
/// through what its types declare: `Scripts/check-layers.py` refuses, in every file above the
/// engine, an `Unmanaged` or `unowned(unsafe)` of an engine type and a downcast to an engine
/// class or protocol, and, in every file but the adopter's (`Model/ObjectBinding.swift`), this
/// protocol, ``LaneEpoch``, ``LaneWriter`` and the in-place reads and writes they are for.
///
/// ```swift
/// final class ObjectBinding: RowFastLane { … }
/// if let (word, isNull) = Self.word(at: &position!, ofColumn: column, type: .int) { … }
/// ```
@usableFromInline package protocol RowFastLane: AnyObject {}

extension RowFastLane {
    /// A one-word value of `type` (int, bool, double, float, timestamp, link) in `position`'s
    /// row, read in place, with whether it is null; nil when the column is not an in-memory,
    /// well-formed column of that type (the caller takes the checked read).
    @_spi(Engine) @inlinable @inline(__always)
    public static func word(at position: inout RowPosition, ofColumn column: Int, type: ColumnType) -> (word: UInt64, isNull: Bool)? {
        RowPosition.word(at: &position, ofColumn: column, type: type)
    }

    /// A string value in `position`'s row, read in place, with whether it is null (nil: take
    /// the checked read).
    @inlinable @inline(__always)
    package static func string(at position: inout RowPosition, ofColumn column: Int) -> (string: String, isNull: Bool)? {
        RowPosition.string(at: &position, ofColumn: column)
    }
}

/// A store's ``ReadEpoch``, held unretained: a read of it is one atomic load, without reference
/// counting. Valid while whoever made it holds the epoch's owner (the source a binding holds
/// keeps its store, or the epoch is the static one that never moves).
@usableFromInline package struct LaneEpoch {
    @usableFromInline unowned(unsafe) let epoch: ReadEpoch

    @inlinable
    package init(_ epoch: ReadEpoch) {
        self.epoch = epoch
    }

    /// The epoch's value now (see ``ReadEpoch/current``).
    @inlinable @inline(__always)
    package var current: UInt64 { epoch.current }
}

/// The open write transaction, held unretained: every write begun or ended moves the read
/// epoch, so while the epoch still shows the value it had when this was made, the transaction
/// is open (and its source holds it).
@usableFromInline package struct LaneWriter {
    @_spi(Engine) public let transaction: Unmanaged<WriteTransaction>

    @_spi(Engine) @inlinable
    public init(_ transaction: WriteTransaction) {
        self.transaction = .passUnretained(transaction)
    }

    /// ``WriteTransaction/writeWordInPlace(_:isNull:type:inTable:column:at:)`` into the column
    /// node the last in-place write went to, when `position` is a row of the same leaf and
    /// nothing else has changed since (the transaction's ``WriteTransaction/mutationCount``
    /// still shows the value that write left): a few compares, the change log's run extended,
    /// the word stored. No descent, no spec check, no reference counting. False, having
    /// changed nothing, otherwise: the caller takes the checked path.
    @_spi(Engine) @inlinable @inline(__always)
    public func writeWordToLastTarget(_ word: UInt64, isNull: Bool, type: ColumnType, column: Int, at position: inout RowPosition) -> Bool {
        transaction._withUnsafeGuaranteedRef { transaction in
            guard transaction.isOpen, let target = transaction.fastPaths.cellTarget, target.mutationCount == transaction.mutationCount,
                  target.column == column, target.type == type, !isNull || target.isNullable,
                  let row = position.row(inLeaf: target.leaf, group: target.group, rowLayoutCount: target.rowLayoutCount)
            else { return false }
            transaction._mutationCount &+= 1
            transaction.fastPaths.cellTarget!.mutationCount = transaction._mutationCount
            transaction.changeLog.appendCell(slot: target.slot, key: position.key, column: column)
            // The leaf holds the node, and nothing has replaced it since (that would have moved
            // the mutation count). Its storage is written through the node, so the words array
            // keeps its copy-on-write check.
            target.node._withUnsafeGuaranteedRef { node in
                node.storage.words[row] = isNull ? 0 : word
                if target.isNullable { node.storage.nulls![row] = isNull }
            }
            return true
        }
    }

    /// ``WriteTransaction/writeWordInPlace(_:isNull:type:inTable:column:at:)`` through this
    /// transaction.
    @_spi(Engine) @inlinable
    public func writeWordInPlace(_ word: UInt64, isNull: Bool, type: ColumnType, inTable table: Int, column: Int,
                                  at position: inout RowPosition) -> Bool {
        transaction._withUnsafeGuaranteedRef {
            $0.writeWordInPlace(word, isNull: isNull, type: type, inTable: table, column: column, at: &position)
        }
    }
}
