@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension Realm {
    /// Runs `block` in a write transaction that `streams` do not report: their next change
    /// is measured from the state after this write (for a view that made the change itself).
    ///
    /// ```swift
    /// extension Realm {
    ///     func rename(_ dog: Dog, to name: String, quietly stream: ObjectChanges<Dog>) throws {
    ///         try write(withoutNotifying: [stream]) { dog.name = name }
    ///     }
    /// }
    /// ```
    ///
    /// - Throws: what `block` throws (the write rolls back), or the commit's error.
    @discardableResult
    public func write<Result>(withoutNotifying streams: [any ChangeStream], _ block: (()) throws -> Result) throws -> Result {
        // One `Void` parameter, which a closure without arguments matches, as ``write(_:)``'s.
        try writeSkipping(streams, deferringSync: false) { try block(()) }.result
    }

    /// Runs `block` in a write transaction on the realm's actor, from any isolation, that
    /// `streams` do not report: their next change is measured from the state after it.
    ///
    /// ```swift
    /// let stream = try await realm.read { realm in try realm.objects(Dog.self).changes }
    /// try await realm.write(withoutNotifying: [stream]) { realm in
    ///     try realm.create(Dog.self, value: ["name": "Rex"])
    ///     return ()
    /// }
    /// ```
    ///
    /// - Throws: what `block` throws (the write rolls back), or the commit's error.
    @discardableResult
    public nonisolated func write<Result: Sendable>(withoutNotifying streams: [any ChangeStream],
                                                    _ block: sending (borrowing Transaction) throws -> Result) async throws -> Result {
        let (result, version) = try await performWrite(withoutNotifying: streams, block)
        try await store.waitUntilDurable(version)
        return result
    }

    private func performWrite<Result: Sendable>(withoutNotifying streams: [any ChangeStream],
                                                _ block: sending (borrowing Transaction) throws -> Result) throws -> (Result, UInt64) {
        try Task.checkCancellation()
        let transaction = Transaction(_access: access)
        let (result, version) = try writeSkipping(streams, deferringSync: true) {
            let result = try block(transaction)
            try Task.checkCancellation()
            return result
        }
        return (result, version)
    }

    /// The write, with each of `streams` told to skip the version it is about to commit (the
    /// writer's turn, held from begin to commit, makes that version known in advance).
    private func writeSkipping<Result>(_ streams: [any ChangeStream], deferringSync: Bool, _ block: () throws -> Result) throws -> (result: Result, version: UInt64) {
        try context.beginWrite()
        let channels = streams.map(\.changeStreamID.channel).filter { $0.store === store }
        let version = context.transaction!.baseVersion + 1
        for channel in channels { channel.skip(version: version) }
        do {
            let result = try block()
            return (result, try context.commitWrite(deferringSync: deferringSync))
        } catch {
            for channel in channels { channel.unskip(version: version) }
            context.cancelWrite()
            throw error
        }
    }
}
