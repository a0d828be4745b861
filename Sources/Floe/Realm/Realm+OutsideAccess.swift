@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension Realm {
    /// Runs `block` in a write transaction on the realm's actor, from any isolation.
    ///
    /// The closure's parameter gives the realm's synchronous API. Its result must be
    /// `Sendable`: a value, or a frozen snapshot. A throw (or a failed property setter)
    /// rolls everything back; so does cancelling the task before the commit.
    ///
    /// ```swift
    /// let count = try await realm.write { realm in
    ///     try realm.create(Dog.self, value: ["name": "Rex"])
    ///     return realm.objects(Dog.self).count
    /// }
    /// ```
    @discardableResult
    public nonisolated func write<Result: Sendable>(_ block: sending (borrowing Transaction) throws -> Result) async throws -> Result {
        // Queued: writes awaited together run back to back on the actor and share a sync.
        try await queuedWrite(block)
    }

    /// Runs `block` in a write transaction on the realm's actor (a `write` whose closure returns nothing).
    ///
    /// ```swift
    /// try await realm.asyncWrite { realm in
    ///     realm.create(Todo.self, value: ["name": name, "owner": owner])
    /// }
    /// ```
    public nonisolated func asyncWrite(_ block: sending (borrowing Transaction) throws -> Void) async throws {
        try await queuedWrite(block)
    }

    /// Runs `block` on the realm's actor against its current version and returns its `Sendable` result.
    ///
    /// ```swift
    /// let frozenDogs = try await realm.read { realm in realm.objects(Dog.self).freeze() }
    /// ```
    public nonisolated func read<Result: Sendable>(_ block: sending (borrowing ReadTransaction) throws -> Result) async throws -> Result {
        try await performRead(block)
    }

    private func performRead<Result: Sendable>(_ block: sending (borrowing ReadTransaction) throws -> Result) throws -> Result {
        try context.read { try block(ReadTransaction(_access: access)) }
    }

    /// The realm's synchronous write API, handed to the closure of ``Realm/write(_:)-((Transaction)->Result)``:
    /// everything ``RealmWriting`` and ``RealmReading`` offer.
    ///
    /// It cannot be kept or passed on: it is valid only inside the closure.
    public struct Transaction: RealmWriting, ~Copyable {
        public let _access: _RealmAccess
    }

    /// The realm's synchronous read API, handed to the closure of ``Realm/read(_:)``:
    /// everything ``RealmReading`` offers.
    ///
    /// It cannot be kept or passed on: it is valid only inside the closure.
    public struct ReadTransaction: RealmReading, ~Copyable {
        public let _access: _RealmAccess
    }
}
