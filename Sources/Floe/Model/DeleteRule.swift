@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What deleting an object does to the objects one of its relationships links to.
///
/// By default (``nullify``) the targets stay and only the links to the deleted object go, as
/// in Realm. A relationship declared ``cascade`` deletes its targets with their owner, in the
/// same write, unless something else still links to them:
///
/// ```swift
/// class Order: Object {
///     @Persisted(primaryKey: true) var id = 0
///     @Persisted(deleteRule: .cascade) var lines: List<OrderLine>
///     @Persisted(deleteRule: .cascade) var invoice: Invoice?
///     @Persisted var customer: Customer?          // stays when the order goes
/// }
///
/// try await realm.write { realm in
///     try realm.delete(order)   // its lines and its invoice go too
/// }
/// ```
///
/// The rule, applied when the write deletes the object:
/// - An object reached through a cascading link is deleted unless an object that survives the
///   write still links to it — through any link, list, set, map or `AnyRealmValue`, cascading or
///   not. A shared target stays while one of its owners stays.
/// - The rule applies again to the targets' own cascading links, through any depth.
/// - Objects that link only to each other (a cycle) and that only the deleted objects reach are
///   deleted together; a cycle that a surviving object links into stays whole.
/// - Deleting several objects at once (`realm.delete(results)`) applies the rule to all of them
///   together: a target shared only by deleted objects goes.
/// - Embedded objects are always deleted with their owner; their own cascading links cascade too.
/// - Change streams report every object the cascade deleted, as deletions of that write.
public enum DeleteRule: Sendable, Hashable, CustomStringConvertible {
    /// Deleting the owner leaves the targets; links to the deleted owner are removed. The default.
    case nullify
    /// Deleting the owner deletes the targets too, unless something else still links to them.
    case cascade

    /// The rule's name, as the schema's description prints it (`"cascade"`).
    public var description: String {
        switch self {
        case .nullify: "nullify"
        case .cascade: "cascade"
        }
    }
}

extension Persisted {
    /// A to-one relationship with a delete rule.
    ///
    /// ```swift
    /// @Persisted(deleteRule: .cascade) var invoice: Invoice?
    /// ```
    @inlinable public init<Target: Object>(deleteRule: DeleteRule) where Value == Target? {
        column = -1
        value = nil
        options = PropertyOptions(deleteRule: deleteRule)
    }

    /// A to-one relationship with an initial target and a delete rule.
    ///
    /// ```swift
    /// @Persisted(deleteRule: .cascade) var invoice: Invoice? = Invoice()
    /// ```
    @inlinable public init<Target: Object>(wrappedValue: Target?, deleteRule: DeleteRule) where Value == Target? {
        column = -1
        value = wrappedValue
        options = PropertyOptions(deleteRule: deleteRule)
    }
}
