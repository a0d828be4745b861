@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The link between a managed object and its stored row: the engine's fast lane
/// (``RowFastLane``), the one place above the engine that reads and writes a row in place.
@usableFromInline
final class ObjectBinding: RowFastLane {
    let source: ObjectSource
    @usableFromInline let tableBinding: TableBinding
    // The mutable state below is `@exclusivity(unchecked)`: every property read touches it, and
    // no access to it overlaps another (a dynamic check cost more than the read).
    @exclusivity(unchecked) private(set) var key: Int64
    /// Where the object was last found: saves a tree walk on every property read.
    @exclusivity(unchecked) private var position: RowPosition?
    /// The value `epoch` had when `position` was last known to be the row reads see: while
    /// the epoch still shows it, a property read trusts the position without asking the source.
    @exclusivity(unchecked) private var stamp: UInt64 = .max
    /// The write transaction open on the source when the read epoch showed `writeStamp`,
    /// unretained (``LaneWriter``): every write begun or ended moves the epoch, so while it
    /// still shows `writeStamp` the transaction is open (and the source holds it). A setter
    /// reaches it with a compare instead of a call through the source that retains it.
    @exclusivity(unchecked) private var writer: LaneWriter?
    @exclusivity(unchecked) private var writeStamp: UInt64 = .max
    /// The source's read epoch (one that never moves, for frozen objects). Unretained
    /// (``LaneEpoch``): the source this binding holds keeps it (a store's, or the static one
    /// that never moves), and a read loads it without reference counting.
    private let epoch: LaneEpoch
    /// The object the last typed link read of `linkColumn` answered. When nothing else holds
    /// it any more, the next link read of that column re-points it at its target instead of
    /// building an object per link; trusted while the read epoch still shows `linkStamp`.
    @exclusivity(unchecked) private var linkTarget: ObjectBase?
    @exclusivity(unchecked) private var linkColumn = -1
    @exclusivity(unchecked) private var linkStamp: UInt64 = .max
    /// Rows in other leaves this binding's object stood for before it was last re-pointed by
    /// key (made on the first re-point that leaves its leaf: a link read's target walking a
    /// table whose rows span a few leaves finds them here instead of descending from the root).
    @exclusivity(unchecked) private var otherLeaves: OtherLeaves?

    init(source: ObjectSource, tableBinding: TableBinding, key: Int64) {
        self.source = source
        self.tableBinding = tableBinding
        self.key = key
        epoch = LaneEpoch(source.readEpoch)
    }

    /// Where the object was last found, if anywhere (its validity is the reader's to judge).
    var cachedPosition: RowPosition? { position }

    /// Seeds the position cache (when the caller just found the object).
    func cachePosition(_ position: RowPosition) {
        self.position = position
        stamp = position.epoch
    }

    /// Makes this binding (and so its object, which nothing else holds) stand for another
    /// object of the same table. Results iteration and primary-key lookups do this.
    func repoint(to position: RowPosition) {
        key = position.key
        stamp = position.epoch
        if self.position?.moveInLeaf(to: position) == true { return }
        self.position = position
    }

    /// Makes this binding (whose object nothing else holds) stand for object `key` of the same
    /// table: within its cached leaf when the row there is trusted and holds `key`, otherwise
    /// found from the version's root. False, having changed nothing, when there is no such
    /// object or it cannot be read (the caller takes the checked read, which reports why).
    func repoint(toKey key: Int64) -> Bool {
        let now = epoch.current
        let trusted = stamp == now && position != nil
        if trusted {
            if key == self.key { return true }
            if position!.moveInLeaf(toKey: key) {
                self.key = key
                return true
            }
            if let otherLeaves, otherLeaves.stamp == now, otherLeaves.take(key, into: &position!) {
                self.key = key
                return true
            }
        }
        guard let reader = try? source.currentReader(), let found = try? reader.position(of: key, in: tableBinding.table) else { return false }
        if trusted {
            // The row left behind is kept: a later key in its leaf is found there.
            if otherLeaves == nil { otherLeaves = OtherLeaves() }
            otherLeaves!.keep(position!, at: now)
        }
        self.key = key
        position = found
        stamp = now
        return true
    }

    /// Makes this binding (whose object nothing else holds) stand for object `key` of the same
    /// table when its cached row is trusted and `key` sits in the same leaf; false, having
    /// changed nothing, otherwise (the caller finds the key from the version's root).
    @inline(__always)
    func repointInLeaf(toKey key: Int64) -> Bool {
        guard stampIsCurrent, position != nil else { return false }
        if key == self.key { return true }
        guard position!.moveInLeaf(toKey: key) else { return false }
        self.key = key
        return true
    }

    /// The object the link in `column` points to, read through the trusted row: `.some(nil)`
    /// for an empty link, nil when the checked read must answer instead (the row is not
    /// trusted, the column is not in memory, the target cannot be found). Re-points the
    /// object the previous link read answered when nothing else holds it or its binding.
    @usableFromInline
    func readLink(column: Int, as type: ObjectBase.Type) -> ObjectBase?? {
        guard let (word, isNull) = trustedWord(column, .link) else { return nil }
        if isNull { return .some(nil) }
        let key = Int64(bitPattern: word)
        let now = stamp
        // The target and its binding both unshared, strongly or weakly (see `mayBeRepointed`).
        if linkStamp == now, linkColumn == column, linkTarget != nil, ObjectBase.mayBeRepointed(&linkTarget!),
           ObjectIdentifier(Swift.type(of: linkTarget!)) == ObjectIdentifier(type), linkTarget!._floeBinding != nil {
            // Unretained: the target this binding holds holds its own binding.
            let repointed = Unmanaged.passUnretained(linkTarget!._floeBinding!)._withUnsafeGuaranteedRef { binding in
                binding.source === source && binding.repoint(toKey: key)
            }
            if repointed { return linkTarget }
        }
        guard let object = source.linkedObject(type, key: key), object._floeBinding != nil else { return nil }
        linkTarget = object
        linkColumn = column
        linkStamp = now
        return object
    }

    /// ``repoint(to:in:)`` at the row `cursor` stepped to last: moved within the cached leaf
    /// when that is the cursor's leaf, or to the next row of the leaf `transaction` copied for
    /// this object's last write; a position is built only when neither holds.
    @inline(__always)
    func repoint(toRowOf cursor: borrowing RowCursor, in transaction: WriteTransaction?) {
        repoint(toRowOf: cursor, writing: transaction.map(WriteRows.init))
    }

    /// ``repoint(toRowOf:in:)`` given what it compares of the open transaction (nil: none open).
    @inline(__always)
    func repoint(toRowOf cursor: borrowing RowCursor, writing: WriteRows?) {
        if position != nil {
            if cursor.move(&position!) {
                key = position!.key
                stamp = position!.epoch
                return
            }
            if let writing, let next = cursor.key, position!.moveToSuccessor(holding: next, in: writing) {
                key = next
                stamp = position!.epoch
                return
            }
        }
        let found = cursor.position
        key = found.key
        position = found
        stamp = found.epoch
    }

    /// ``repoint(toRowOf:writing:)`` on `binding`, reached unretained (the caller's object holds
    /// it), inside a write. Not generic, so the step is compiled once, inlined here, rather
    /// than as a closure called from the iterator's unspecialized generic code; the
    /// transaction's part is passed as values, so nothing retains it.
    static func repoint(_ binding: Unmanaged<ObjectBinding>, toRowOf cursor: borrowing RowCursor, writing: WriteRows) {
        binding._withUnsafeGuaranteedRef { $0.repoint(toRowOf: cursor, writing: writing) }
    }

    /// A one-word value of `type` from the trusted row, read in place (nil: take the checked read).
    @inline(__always)
    func trustedWord(_ column: Int, _ type: ColumnType) -> (word: UInt64, isNull: Bool)? {
        guard stampIsCurrent, position != nil else { return nil }
        return Self.word(at: &position!, ofColumn: column, type: type)
    }

    /// A string value from the trusted row, with whether it is null (nil: take the checked read).
    @inline(__always)
    func trustedString(_ column: Int) -> (string: String, isNull: Bool)? {
        guard stampIsCurrent, position != nil else { return nil }
        return Self.string(at: &position!, ofColumn: column)
    }

    /// Writes one word into the trusted row in place when its leaf is the open write's own
    /// (see ``WriteTransaction/writeWordInPlace(_:isNull:type:inTable:column:at:)``); false:
    /// nothing was written.
    /// The common case, a row of the leaf and column the open write last wrote in place, is a
    /// version check and a store (``LaneWriter/writeWordToLastTarget(_:isNull:type:column:at:)``).
    @inline(__always)
    func writeWordInPlace(_ word: UInt64, isNull: Bool, type: ColumnType, column: Int) -> Bool {
        let now = epoch.current
        guard stamp == now, position != nil else { return false }
        if writeStamp == now, let writer, writer.writeWordToLastTarget(word, isNull: isNull, type: type, column: column, at: &position!) {
            return true
        }
        return writeWordInPlaceChecked(word, isNull: isNull, type: type, column: column, epoch: now)
    }

    /// ``writeWordInPlace(_:isNull:type:column:)`` through the source's open transaction, which
    /// is remembered for the next setter.
    private func writeWordInPlaceChecked(_ word: UInt64, isNull: Bool, type: ColumnType, column: Int, epoch now: UInt64) -> Bool {
        guard let transaction = source.openTransaction else { return false }
        writer = LaneWriter(transaction)
        writeStamp = now
        return transaction.writeWordInPlace(word, isNull: isNull, type: type, inTable: tableBinding.table.index, column: column, at: &position!)
    }

    /// Whether nothing has happened since the cached position was last confirmed that could
    /// make it stale: one load and one compare.
    @inline(__always)
    var stampIsCurrent: Bool { stamp == epoch.current }

    var className: String { tableBinding.schema.className }

    /// The column of the class's property at `index` (in schema order) in this object's table.
    // Inlinable: a projected read looks its column up on every read.
    @inlinable
    func column(ofProperty index: Int) -> Int {
        tableBinding.columnOfProperty[index]
    }

    /// What a read of `column` answers when its bytes are damaged: the type's default (nil
    /// for optionals), which decodes without trapping; the enclosing read throws anyway.
    private func placeholder(forColumn column: Int) -> Value {
        guard let property = tableBinding.propertyOfColumn[column].map({ tableBinding.schema.properties[$0] }),
              !property.type.isOptional else { return .null }
        return Value.defaultValue(for: property.type.columnType)
    }

    @usableFromInline
    func read(column: Int) -> _FloeValue {
        if tableBinding.isCollectionColumn[column] {
            // Collections read their elements themselves, through this binding.
            return .managedCollection(parent: self, column: column)
        }
        do throws(FloeError) {
            return .read(try currentPosition().value(ofColumn: column), parent: self, column: column)
        } catch .noSuchObject {
            if source.hasRecordedDamage { return .read(placeholder(forColumn: column), parent: self, column: column) }
            preconditionFailure("Cannot read '\(className).\(tableBinding.propertyName(ofColumn: column))': the \(className) object with key \(key) has been deleted or invalidated. Check isInvalidated first.")
        } catch {
            return source.readFailed(error, reading: "\(className).\(tableBinding.propertyName(ofColumn: column))' of the \(className) object with key \(key)",
                                     placeholder: .read(placeholder(forColumn: column), parent: self, column: column))
        }
    }

    /// The object's row in the version reads see now, checked in full (found again when the
    /// cached one may be stale), and stamped so that the next reads trust it.
    private func currentPosition() throws(FloeError) -> RowPosition {
        // Loaded before the check: anything that happens after it moves the epoch past this.
        let now = epoch.current
        if stamp == now, let position { return position }
        if let position, source.isCurrent(position) {
            stamp = now
            return position
        }
        let reader = try source.currentReader()
        guard let found = try reader.position(of: key, in: tableBinding.table) else {
            throw FloeError.noSuchObject(table: tableBinding.table.name, key: key)
        }
        position = found
        stamp = now
        return found
    }

    @usableFromInline
    func write(_ value: _FloeValue, column: Int) {
        precondition(!source.isFrozen, "Cannot modify '\(className).\(tableBinding.propertyName(ofColumn: column))' of a frozen \(className) object (key \(key)).")
        source.write(value, binding: self, column: column)
    }

    /// Whether the object still exists in the version reads see.
    var exists: Bool {
        guard let reader = try? source.currentReader() else { return false }
        return (try? reader.contains(key, in: tableBinding.table)) ?? false
    }
}

/// A few rows, each in another leaf of one table's version, that an ``ObjectBinding`` stood
/// for before it was re-pointed by key: re-pointing it at a key of one of those leaves swaps
/// rows instead of descending from the root. Valid while the read epoch shows `stamp` (a
/// write, commit or refresh moves the epoch, and the rows are then dropped, never read).
final class OtherLeaves {
    /// How many rows are kept (with the binding's own row, this many + 1 leaves are reached
    /// without a descent): eight leaves, 1,024 objects of leaves filled to
    /// ``ClusterTree/leafCapacity``.
    static let capacity = 7
    private(set) var stamp: UInt64 = .max
    /// The kept rows, the one kept last first.
    @exclusivity(unchecked) private var rows: [RowPosition] = []

    init() {
        rows.reserveCapacity(Self.capacity)
    }

    /// Moves `position` to object `key` when a kept row's leaf holds it: the kept row and
    /// `position` change places (the leaf `position` was in is kept instead). The caller has
    /// checked that the epoch still shows ``stamp``.
    @inline(__always)
    func take(_ key: Int64, into position: inout RowPosition) -> Bool {
        for index in rows.indices where rows[index].moveInLeaf(toKey: key) {
            swap(&rows[index], &position)
            return true
        }
        return false
    }

    /// Keeps `position`, trusted under epoch value `now`, in place of the row kept longest
    /// (all of them when they were kept under another value).
    func keep(_ position: RowPosition, at now: UInt64) {
        if stamp != now {
            stamp = now
            rows.removeAll(keepingCapacity: true)
        } else if rows.count == Self.capacity {
            rows.removeLast()
        }
        rows.insert(position, at: 0)
    }
}
