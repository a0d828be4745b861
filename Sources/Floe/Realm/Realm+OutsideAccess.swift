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
        let (result, version) = try await performWrite(block)
        // Off the actor: the next queued write commits meanwhile, and shares this sync.
        try await store.waitUntilDurable(version)
        return result
    }

    /// Runs `block` in a write transaction on the realm's actor (a `write` whose closure returns nothing).
    ///
    /// ```swift
    /// try await realm.asyncWrite { realm in
    ///     realm.create(Todo.self, value: ["name": name, "owner": owner])
    /// }
    /// ```
    public nonisolated func asyncWrite(_ block: sending (borrowing Transaction) throws -> Void) async throws {
        let (_, version) = try await performWrite(block)
        try await store.waitUntilDurable(version)
    }

    /// Runs `block` on the realm's actor against its current version and returns its `Sendable` result.
    ///
    /// ```swift
    /// let frozenDogs = try await realm.read { realm in realm.objects(Dog.self).freeze() }
    /// ```
    public nonisolated func read<Result: Sendable>(_ block: sending (borrowing ReadTransaction) throws -> Result) async throws -> Result {
        try await performRead(block)
    }

    /// Commits without syncing (group commit): the caller awaits durability off the actor.
    private func performWrite<Result: Sendable>(_ block: sending (borrowing Transaction) throws -> Result) throws -> (Result, UInt64) {
        try Task.checkCancellation()
        let transaction = Transaction(core: core)
        return try core.write(deferringSync: true) {
            let result = try block(transaction)
            // Cancelled before the commit: roll back rather than publish.
            try Task.checkCancellation()
            return result
        }
    }

    private func performRead<Result: Sendable>(_ block: sending (borrowing ReadTransaction) throws -> Result) throws -> Result {
        try core.read { try block(ReadTransaction(core: core)) }
    }

    /// The realm's synchronous write API, handed to the closure of ``Realm/write(_:)-swift.method``.
    ///
    /// It cannot be kept or passed on: it is valid only inside the closure.
    public struct Transaction: ~Copyable {
        let core: RealmCore

        /// Adds an unmanaged object.
        public func add(_ object: Object, update: UpdatePolicy = .error) throws {
            try core.add(object, update: update)
        }

        /// Adds every object of a sequence.
        public func add<S: Sequence>(_ objects: S, update: UpdatePolicy = .error) throws where S.Element: Object {
            for object in objects { try core.add(object, update: update) }
        }

        /// Creates an object from a dictionary, an array in property order, or another object.
        @discardableResult
        public func create<T: ObjectBase>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error) throws -> T {
            try core.create(type, value: value, update: update)
        }

        /// Deletes a managed object.
        public func delete(_ object: ObjectBase) throws { try core.delete(object) }

        /// Deletes every object of a sequence.
        public func delete<S: Sequence>(_ objects: S) throws where S.Element: ObjectBase {
            for object in Array(objects) { try core.delete(object) }
        }

        /// Deletes every object in the realm.
        public func deleteAll() throws { try core.deleteAll() }

        /// Every object of a class, including this transaction's changes.
        public func objects<T: Object>(_ type: T.Type) -> Results<T> { Results(core: core) }

        /// The object of `type` whose primary key is `key`, or nil.
        public func object<T: Object, Key: _Persistable>(ofType type: T.Type, forPrimaryKey key: Key) -> T? {
            core.object(ofType: type, forPrimaryKey: key)
        }

        /// The live counterpart of a frozen object, or nil if it was deleted since.
        public func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? { core.thaw(frozen) }

        /// The live counterpart of a frozen list, or nil if its object was deleted since.
        public func thaw<Element>(_ frozen: FrozenList<Element>) -> List<Element>? { core.thaw(frozen) }

        /// The live counterpart of a frozen set, or nil if its object was deleted since.
        public func thaw<Element>(_ frozen: FrozenSet<Element>) -> MutableSet<Element>? { core.thaw(frozen) }

        /// The live counterpart of a frozen map, or nil if its object was deleted since.
        public func thaw<Key, Value>(_ frozen: FrozenMap<Key, Value>) -> Map<Key, Value>? { core.thaw(frozen) }
    }

    /// The realm's synchronous read API, handed to the closure of ``Realm/read(_:)``.
    public struct ReadTransaction: ~Copyable {
        let core: RealmCore

        /// Every object of a class.
        public func objects<T: Object>(_ type: T.Type) -> Results<T> { Results(core: core) }

        /// The object of `type` whose primary key is `key`, or nil.
        public func object<T: Object, Key: _Persistable>(ofType type: T.Type, forPrimaryKey key: Key) -> T? {
            core.object(ofType: type, forPrimaryKey: key)
        }

        /// A frozen snapshot of the whole realm.
        public func freeze() throws -> FrozenRealm {
            FrozenRealm(snapshot: try core.latestSnapshot(), configuration: core.configuration)
        }

        /// The live counterpart of a frozen object, or nil if it was deleted since.
        public func thaw<T: ObjectBase>(_ frozen: Frozen<T>) -> T? { core.thaw(frozen) }

        /// The live counterpart of a frozen list, or nil if its object was deleted since.
        public func thaw<Element>(_ frozen: FrozenList<Element>) -> List<Element>? { core.thaw(frozen) }

        /// The live counterpart of a frozen set, or nil if its object was deleted since.
        public func thaw<Element>(_ frozen: FrozenSet<Element>) -> MutableSet<Element>? { core.thaw(frozen) }

        /// The live counterpart of a frozen map, or nil if its object was deleted since.
        public func thaw<Key, Value>(_ frozen: FrozenMap<Key, Value>) -> Map<Key, Value>? { core.thaw(frozen) }
    }
}
