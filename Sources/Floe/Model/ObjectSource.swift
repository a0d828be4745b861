@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Where a managed object's values live: a live realm's current version, or a frozen version.
protocol ObjectSource: AnyObject {
    /// The version a frozen view of this source's objects reads: the newest commit of a live
    /// realm, or a frozen source's own version.
    func frozenSnapshot() throws(FloeError) -> Snapshot
    /// The store this source reads, so that objects of two realms on one file compare equal
    /// (nil for frozen sources, whose objects are the same only through the same source).
    var storeIdentity: ObjectIdentifier? { get }
    /// What owns the source (a live realm), if anything.
    var owner: AnyObject? { get }
    /// The version reads see now.
    func currentReader() throws(FloeError) -> any VersionReading
    /// Whether a cached position may be read at the version reads see now.
    func isCurrent(_ position: RowPosition) -> Bool
    var isFrozen: Bool { get }
    /// Writes one column of one object, inside the open write transaction. Errors cannot be
    /// thrown from a property setter: the source records them and the write that encloses
    /// the setter throws and rolls back.
    func write(_ value: _FloeValue, binding: ObjectBinding, column: Int)
    /// The object `key` of `type`'s table, bound to this source (nil: it does not exist).
    func linkedObject(_ type: ObjectBase.Type, key: Int64) -> ObjectBase?
    /// The model class this source stores under `className` (a mixed value names only its table).
    func modelType(named className: String) -> ObjectBase.Type?
    /// Changes one collection of one object inside the open write transaction; like property
    /// setters, errors are recorded and make the enclosing write throw.
    func changeCollection(binding: ObjectBinding, column: Int, _ change: (any CollectionEditing) throws(FloeError) -> Void)
    /// A read that cannot throw met damage: the enclosing read or write must throw `error`.
    func recordReadFailure(_ error: FloeError)
    /// A read that cannot throw met a stored value its Swift type cannot hold (an enum raw value
    /// that names no case, a failable type projection's value with no mapping): the enclosing
    /// read or write must throw `error`, and `checkIntegrity()` report it.
    func recordInvalidValue(_ error: FloeError)
    /// Whether a read met damage (then an object missing from its tree is the damage's
    /// placeholder, not misuse).
    var hasRecordedDamage: Bool { get }
    /// Moves whenever a row an object cached may have stopped being the one reads see.
    var readEpoch: ReadEpoch { get }
    /// The write transaction open on this source, if any (typed setters write through it in place).
    var openTransaction: WriteTransaction? { get }
}

extension ObjectSource {
    /// Sources whose rows never change (frozen versions, probes) share one that never moves.
    var readEpoch: ReadEpoch { .unchanging }

    var openTransaction: WriteTransaction? { nil }

    func isCurrent(_ position: RowPosition) -> Bool {
        guard let reader = try? currentReader() else { return false }
        return position.isValid(for: reader)
    }

    /// What a read that cannot throw does with `error`: damaged bytes (a failed checksum, a
    /// short read) are recorded and the read answers `placeholder`; anything else is misuse
    /// (reading a deleted object) and stops with `what` and the error.
    func readFailed<T>(_ error: FloeError, reading what: @autoclosure () -> String, placeholder: T) -> T {
        switch error {
        case .corruptFile, .io:
            recordReadFailure(error)
            return placeholder
        case .noSuchObject where hasRecordedDamage:
            // The placeholder of an object that damage kept from being found.
            return placeholder
        default:
            preconditionFailure("Cannot read '\(what())': \(error)")
        }
    }
}
