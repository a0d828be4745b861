@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What lives for one write of a realm and no longer: the errors its property setters raised
/// (they cannot throw, so the write throws the first when it commits), the objects a `create`
/// is copying (a graph that links back to one of them is a cycle), and the typed insert plans
/// made for its classes. ``ObjectContext`` makes a fresh one when a write begins and drops it
/// when the write commits or rolls back, so nothing of one write can leak into the next.
///
/// ```swift
/// context.session.recordSetterError(.primaryKeyChanged(className: "Dog", property: "id", from: "1", to: "2"))
/// ```
struct WriteSession {
    /// Errors raised by property setters inside the write, in order.
    private(set) var setterErrors: [FloeError] = []
    /// How deep the current `create` nests objects (a cycle shows as unbounded nesting).
    private(set) var nestingDepth = 0
    /// The objects whose values the current `create` is copying, outermost first.
    private(set) var objectsBeingCopied: [ObjectIdentifier] = []
    /// The typed insert plans of the write, by class binding (see ``TypedInsertPlan``), and
    /// the one used last.
    private var insertPlans: [ObjectIdentifier: InsertPlanEntry] = [:]
    private var lastInsertPlan: InsertPlanEntry?

    /// Objects nested deeper than this in one `create` (or one unmanaged copy) are refused:
    /// that is how a cycle shows.
    static let maximumNesting = 100

    // MARK: Setter errors

    mutating func recordSetterError(_ error: FloeError) {
        setterErrors.append(error)
    }

    // MARK: Cycles

    var isCopyingObjects: Bool { !objectsBeingCopied.isEmpty }

    func isCopying(_ object: ObjectBase) -> Bool {
        !objectsBeingCopied.isEmpty && objectsBeingCopied.contains(ObjectIdentifier(object))
    }

    /// Enters one level of a `create` that copies `source` (nil: a dictionary or array, not
    /// an object); throws when the nesting is too deep or `source` is already being copied.
    mutating func enterCopy(of source: ObjectIdentifier?, className: String) throws(FloeError) {
        guard nestingDepth < Self.maximumNesting else { throw .cyclicValue(className: className) }
        if let source {
            guard !objectsBeingCopied.contains(source) else { throw .cyclicValue(className: className) }
            objectsBeingCopied.append(source)
        }
        nestingDepth += 1
    }

    /// Leaves the level ``enterCopy(of:className:)`` entered.
    mutating func leaveCopy(of source: ObjectIdentifier?) {
        nestingDepth -= 1
        if source != nil { objectsBeingCopied.removeLast() }
    }

    // MARK: Insert plans

    /// The typed insert plan already made in this write for `binding`'s class: `.some(nil)`
    /// when the class cannot take the typed path, nil when none was made yet. (A session lives
    /// for one write, so a plan found here was made for the open transaction.)
    func knownInsertPlan(for binding: TableBinding) -> TypedInsertPlan?? {
        // Compared in place: copying the entry out would retain each of its references.
        if lastInsertPlan != nil, lastInsertPlan!.binding === binding { return .some(lastInsertPlan!.plan) }
        if let known = insertPlans[ObjectIdentifier(binding)], known.binding === binding { return .some(known.plan) }
        return nil
    }

    /// Makes (and keeps) the typed insert plan of `binding`'s class in `transaction`; nil when
    /// the class cannot take the typed path (see ``TypedInsertPlan/init(binding:transaction:)``).
    mutating func makeInsertPlan(for binding: TableBinding, in transaction: WriteTransaction) -> TypedInsertPlan? {
        let plan = TypedInsertPlan(binding: binding, transaction: transaction)
        let entry = InsertPlanEntry(binding: binding, plan: plan)
        insertPlans[ObjectIdentifier(binding)] = entry
        lastInsertPlan = entry
        return plan
    }

    /// Drops the plans: a table was just created, and the bindings they were made for with it.
    mutating func forgetInsertPlans() {
        insertPlans.removeAll()
        lastInsertPlan = nil
    }
}
