@_spi(Engine) import FloeStorage

/// An immutable view of one committed version.
///
/// Taking a snapshot is O(1): it holds the version's root, which no later write can
/// change. It is `Sendable` and reads need no lock, so any number of tasks can share one.
/// While it lives it pins its version (see ``Store/activeVersionCount``).
///
/// ```swift
/// let snapshot = try store.snapshot()
/// let dogs = try snapshot.table(named: "Dog")
/// Task.detached { print(try snapshot.objectCount(in: dogs)) }
/// ```
@_spi(Engine) public final class Snapshot: VersionReading, Sendable {
    /// The version this snapshot shows.
    public let version: UInt64
    public let group: GroupNode
    private let pin: VersionPin?
    /// Where reads of this snapshot that cannot throw report damage (the store's log).
    public let damage: DamageLog

    /// A snapshot never changes.
    public var mutationCount: Int { 0 }

    public var rowLayoutCount: Int { 0 }

    /// The store's ``ReadEpoch`` value when this snapshot was the newest version (`.max`: not
    /// known, so that rows found here are checked in full before a fast read trusts them).
    package let readEpoch: UInt64

    public var positionEpoch: UInt64 { readEpoch }

    package init(version: UInt64, group: GroupNode, pin: VersionPin?, damage: DamageLog = DamageLog(), readEpoch: UInt64 = .max) {
        self.version = version
        self.group = group
        self.pin = pin
        self.damage = damage
        self.readEpoch = readEpoch
    }
}

/// Keeps a version counted as active until released.
package final class VersionPin: Sendable {
    package let version: UInt64
    private let release: @Sendable (UInt64) -> Void

    package init(version: UInt64, release: @escaping @Sendable (UInt64) -> Void) {
        self.version = version
        self.release = release
    }

    deinit { release(version) }
}
