/// The conflict rules, as pure functions of the server's order: the server applies each
/// uploaded change with them, and every client applies the server's log with them, so every
/// replica converges to the server's state.
///
/// - An insert writes every property it carries (creating the object again if it was deleted;
///   properties it does not carry keep their values).
/// - An update writes only the properties it carries: last writer (in server order) wins, per property.
/// - A delete removes the object; an update that reaches the server after it is dropped
///   (a delete wins over later updates of the same object).
/// - Lists, sets and maps merge when an update carries their value before the change
///   (``ObjectChange/bases``, as clients send it): a list by position, so that insertions on
///   two devices both survive and a removal applies once; a set as a set; a map per key (see
///   ``CollectionBase`` and the rules in the Sync guide). The merged value is what is logged.
///   Without a base, the last writer wins for the whole collection.
///
/// ```swift
/// var objects: [SyncObjectID: [String: SyncValue]] = [:]
/// ConflictRules.apply(ObjectChange(className: "Todo", key: .int(1), operation: .insert, values: ["title": .string("milk")]), to: &objects)
/// ```
public enum ConflictRules {
    /// Applies `change` to `objects`, returning the change as applied (nil when it changed
    /// nothing: an update or delete of an object that is not there).
    @discardableResult
    public static func apply(_ change: ObjectChange, to objects: inout [SyncObjectID: [String: SyncValue]]) -> ObjectChange? {
        let id = change.objectID
        switch change.operation {
        case .insert:
            objects[id, default: [:]].merge(change.values) { _, new in new }
            return resolved(change, current: nil)
        case .update:
            guard objects[id] != nil else { return nil }
            let resolved = resolved(change, current: objects[id])
            objects[id]!.merge(resolved.values) { _, new in new }
            return resolved
        case .delete:
            return objects.removeValue(forKey: id) == nil ? nil : change
        }
    }

    /// `change` with each collection that carries a base merged into the object's `current`
    /// values, and no bases left: what the server logs, and what replaces the values on every
    /// replica. An insert or delete is returned as it is (without bases).
    ///
    /// ```swift
    /// let logged = ConflictRules.resolved(upload, current: stored[upload.objectID])
    /// ```
    public static func resolved(_ change: ObjectChange, current: [String: SyncValue]?) -> ObjectChange {
        var resolved = change
        resolved.bases = nil
        guard change.operation == .update, let bases = change.bases else { return resolved }
        for (name, base) in bases {
            guard let mine = change.values[name], let merged = CollectionMerge.merge(base, mine: mine, current: current?[name]) else { continue }
            resolved.values[name] = merged
        }
        return resolved
    }

    /// Applies `changes` in order, returning those that applied.
    public static func apply(_ changes: [ObjectChange], to objects: inout [SyncObjectID: [String: SyncValue]]) -> [ObjectChange] {
        changes.compactMap { apply($0, to: &objects) }
    }
}
