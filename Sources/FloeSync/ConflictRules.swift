/// The conflict rules, as pure functions of the server's order: the server applies each
/// uploaded change with them, and every client applies the server's log with them, so every
/// replica converges to the server's state.
///
/// - An insert writes every property it carries (creating the object again if it was deleted;
///   properties it does not carry keep their values).
/// - An update writes only the properties it carries: last writer (in server order) wins, per property.
/// - A delete removes the object; an update that reaches the server after it is dropped
///   (a delete wins over later updates of the same object).
/// - Lists, sets and maps are values: the last writer wins for the whole collection.
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
            return change
        case .update:
            guard objects[id] != nil else { return nil }
            objects[id]!.merge(change.values) { _, new in new }
            return change
        case .delete:
            return objects.removeValue(forKey: id) == nil ? nil : change
        }
    }

    /// Applies `changes` in order, returning those that applied.
    public static func apply(_ changes: [ObjectChange], to objects: inout [SyncObjectID: [String: SyncValue]]) -> [ObjectChange] {
        changes.compactMap { apply($0, to: &objects) }
    }
}
