@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension Realm {
    /// Throws the first damage that a read which could not throw met in this realm's file.
    ///
    /// A property getter that loads a damaged node cannot throw: it answers a placeholder (the
    /// type's default, or nil), and the enclosing `read { }` or write throws the damage, so no
    /// value computed from damaged bytes leaves it. A stored value that the property's type
    /// cannot hold (an enum raw value that names no case, a failable type projection's value
    /// with no mapping) is met the same way. Code with no such boundary — synchronous reads
    /// inside the actor, frozen objects read from other tasks — asks here. Undamaged data
    /// keeps reading normally; `floe recover` salvages the newest intact version of the file.
    ///
    /// ```swift
    /// let names = dogs.map(\.name)          // inside the actor, no throwing boundary
    /// try realm.checkIntegrity()           // throws FloeError.corruptFile if a read met damage
    /// ```
    ///
    /// - Throws: ``FloeError/corruptFile(path:offset:detail:)`` (or ``FloeError/io(path:operation:errno:)``
    ///   for a failed read) describing the first damage met, or
    ///   ``FloeError/typeMismatch(table:column:expected:value:)`` naming the class, property and
    ///   value of the first stored value its type could not hold.
    public nonisolated func checkIntegrity() throws {
        if let damage = store.damage.firstError { throw damage }
    }
}

extension FrozenRealm {
    /// Throws the first damage that reads of this file's frozen objects (from any task) met;
    /// see ``Realm/checkIntegrity()``.
    ///
    /// ```swift
    /// let frozen = try await realm.read { realm in try realm.freeze() }
    /// let total = frozen.objects(Dog.self).reduce(0) { $0 + $1.age }
    /// try frozen.checkIntegrity()
    /// ```
    public func checkIntegrity() throws {
        if let damage = snapshot.damage.firstError { throw damage }
    }
}

extension Realm {
    /// Brings a read-only realm up to the newest commit another process wrote to its file (and
    /// follows the file when that process compacts it). Returns whether there was anything new.
    ///
    /// A realm that writes always reads its own newest version, and so do realms of the same
    /// file in this process: for them this returns false. `read { }` on a read-only realm
    /// refreshes first by itself.
    ///
    /// ```swift
    /// let viewer = try await Realm(configuration: Realm.Configuration(fileURL: url, readOnly: true))
    /// if await viewer.refresh() { print("the app committed more") }
    /// ```
    @discardableResult
    public func refresh() -> Bool {
        do {
            return try store.refresh()
        } catch {
            // Realm's refresh() cannot throw: the next read does.
            context.deferReadError(error)
            return false
        }
    }
}
