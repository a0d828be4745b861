@_spi(Engine) import FloeStorage

/// Damage met by reads that cannot throw: a property getter, or a frozen object read from
/// another task, that loaded a node failing its checksum (or a stored value its property's
/// type cannot hold, such as an enum raw value that names no case). Such a read answers with a
/// placeholder and records the error here, so that the realm (`checkIntegrity()`) and the
/// enclosing `read { }` or write can report it. The first error is kept: damage in an
/// append-only file does not heal, and one error is enough to send the user to `floe recover`.
///
/// ```swift
/// store.damage.record(error)
/// if let damage = store.damage.firstError { throw damage }
/// ```
@_spi(Engine) public final class DamageLog: Sendable {
    private let first = Locked<FloeError?>(nil)

    public init() {}

    public func record(_ error: FloeError) {
        first.withLock { if $0 == nil { $0 = error } }
    }

    /// The first damage recorded, if any.
    public var firstError: FloeError? { first.withLock { $0 } }
}
