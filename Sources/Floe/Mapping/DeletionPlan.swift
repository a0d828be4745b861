@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Which rows one delete removes: the objects asked for, the embedded objects they own, and the
// objects their cascading links reach that nothing surviving still links to (DeleteRule).

/// One row, named by its table and key.
struct RowReference: Hashable {
    let table: String
    let key: Int64
}

/// The rows a delete removes, grouped in units: an object and the embedded objects it owns
/// (which always go together).
///
/// Built in two passes. ``ObjectContext/planDeletion(of:)`` first expands the objects asked for
/// (the roots) along embedded and cascading links, making every object a cascading link reaches
/// a candidate; then it drops every candidate that a row outside the plan still links to, and
/// whatever that candidate's own cascading links reached only through it, until nothing changes.
/// What is left is the largest set of objects that only deleted objects link to.
struct DeletionPlan {
    struct Unit {
        let binding: TableBinding
        let head: RowReference
        let isRoot: Bool
        /// The unit's rows, each owner before the embedded objects it owns.
        var rows: [(binding: TableBinding, key: Int64)] = []
    }

    /// Units by head, and the order they were found in (roots first), so that deletes run in
    /// a repeatable order.
    private(set) var units: [RowReference: Unit] = [:]
    private(set) var order: [RowReference] = []
    /// The unit each planned row belongs to.
    private var unitOfRow: [RowReference: RowReference] = [:]

    func contains(unit head: RowReference) -> Bool { units[head] != nil }

    /// Whether the row (an object or an embedded object) is deleted by this plan.
    func deletes(_ row: RowReference) -> Bool { unitOfRow[row] != nil }

    /// The units that a cascading link reached, not asked for themselves.
    var candidates: [RowReference] { order.filter { units[$0]?.isRoot == false } }

    mutating func add(_ binding: TableBinding, key: Int64, isRoot: Bool) -> RowReference {
        let head = RowReference(table: binding.table.name, key: key)
        if units[head] == nil {
            units[head] = Unit(binding: binding, head: head, isRoot: isRoot)
            order.append(head)
            unitOfRow[head] = head
        }
        return head
    }

    mutating func setRows(_ rows: [(binding: TableBinding, key: Int64)], of head: RowReference) {
        units[head]?.rows = rows
        for row in rows { unitOfRow[RowReference(table: row.binding.table.name, key: row.key)] = head }
    }

    /// Keeps a candidate after all; answers its rows, whose links now come from outside the plan.
    mutating func keep(_ head: RowReference) -> [(binding: TableBinding, key: Int64)] {
        guard let unit = units.removeValue(forKey: head) else { return [] }
        for row in unit.rows { unitOfRow[RowReference(table: row.binding.table.name, key: row.key)] = nil }
        unitOfRow[head] = nil
        return unit.rows
    }

    /// The units to delete, in the order they were found.
    var unitsInOrder: [Unit] { order.compactMap { units[$0] } }
}

extension ObjectContext {
    /// Plans the delete of `roots` (rows present in the open write).
    func planDeletion(of roots: [(binding: TableBinding, key: Int64)]) throws(FloeError) -> DeletionPlan {
        let transaction = try requireWrite()
        var plan = DeletionPlan()
        var expanding: [RowReference] = []
        for root in roots { expanding.append(plan.add(root.binding, key: root.key, isRoot: true)) }
        // Expansion: each unit's embedded objects (found with a worklist, since they may nest
        // as deep as the user likes) and the objects its cascading links reach.
        var index = 0
        while index < expanding.count {
            let head = expanding[index]
            index += 1
            guard let unit = plan.units[head] else { continue }
            var rows: [(binding: TableBinding, key: Int64)] = []
            var pending = [(binding: unit.binding, key: unit.head.key)]
            while let (owner, ownerKey) = pending.popLast() {
                rows.append((owner, ownerKey))
                for (propertyIndex, property) in owner.schema.properties.enumerated() where !property.isComputed {
                    guard let target = property.type.objectType else { continue }
                    let isEmbedded = try SchemaDiscovery.schema(for: target).kind == .embedded
                    guard isEmbedded || property.deleteRule == .cascade, let targetBinding = try tableBinding(for: target) else { continue }
                    let linked = try transaction.storedValues(of: property, column: owner.columnOfProperty[propertyIndex], in: owner.table, key: ownerKey)
                    for case .link(let linkedKey) in linked where try transaction.contains(linkedKey, in: targetBinding.table) {
                        if isEmbedded {
                            pending.append((targetBinding, linkedKey))
                        } else if !plan.contains(unit: RowReference(table: targetBinding.table.name, key: linkedKey)) {
                            expanding.append(plan.add(targetBinding, key: linkedKey, isRoot: false))
                        }
                    }
                }
            }
            plan.setRows(rows, of: head)
        }
        let candidates = plan.candidates
        guard !candidates.isEmpty else { return plan }
        // Pruning: a candidate that a row outside the plan links to stays, and then links from
        // outside the plan itself: look again at what it links to, until no candidate changes.
        var incoming = IncomingLinks(transaction: transaction)
        var looking = candidates
        while let head = looking.popLast() {
            guard let unit = plan.units[head], !unit.isRoot else { continue }
            if try incoming.origins(of: head).contains(where: { !plan.deletes($0) }) {
                // Kept: every object it links to, by any relationship, is linked from outside
                // the plan now; those that are candidates are looked at again.
                for row in plan.keep(head) { try forEachObject(linkedFrom: row, in: transaction) { looking.append($0) } }
            }
        }
        return plan
    }
}

extension ObjectContext {
    /// Calls `body` with every object a row links to: through links, lists, sets and maps of
    /// objects, and through `AnyRealmValue`s.
    fileprivate func forEachObject(linkedFrom row: (binding: TableBinding, key: Int64), in transaction: WriteTransaction,
                                   _ body: (RowReference) -> Void) throws(FloeError) {
        let (owner, key) = row
        for (propertyIndex, property) in owner.schema.properties.enumerated() where !property.isComputed {
            let isMixed = property.type.columnType == .mixed
            guard isMixed || property.type.objectType != nil else { continue }
            let values = try transaction.storedValues(of: property, column: owner.columnOfProperty[propertyIndex], in: owner.table, key: key)
            if isMixed {
                for value in values { value.forEachTypedLink(body) }
            } else if let target = property.type.objectType {
                let table = try SchemaDiscovery.schema(for: target).className
                for case .link(let linked) in values { body(RowReference(table: table, key: linked)) }
            }
        }
    }
}

/// Every row that links to a given object: through link columns (their backlinks), and through
/// `AnyRealmValue`s (found by one scan of the mixed columns, made the first time it is needed).
private struct IncomingLinks {
    let transaction: WriteTransaction
    private var linkColumnsByTarget: [String: [(table: TableHandle, column: Int)]]?
    private var mixedOrigins: [RowReference: [RowReference]]?

    init(transaction: WriteTransaction) { self.transaction = transaction }

    mutating func origins(of target: RowReference) throws(FloeError) -> [RowReference] {
        if linkColumnsByTarget == nil { try scanSchema() }
        var origins: [RowReference] = []
        for (table, column) in linkColumnsByTarget?[target.table] ?? [] {
            for origin in try transaction.linkingObjects(in: table, column: column, to: target.key) {
                origins.append(RowReference(table: table.name, key: origin))
            }
        }
        origins.append(contentsOf: mixedOrigins?[target] ?? [])
        return origins
    }

    private mutating func scanSchema() throws(FloeError) {
        var byTarget: [String: [(table: TableHandle, column: Int)]] = [:]
        var mixed: [RowReference: [RowReference]] = [:]
        for name in try transaction.tableNames() {
            let table = try transaction.table(named: name)
            let spec = try transaction.spec(of: table)
            for (column, columnSpec) in spec.columns.enumerated() {
                if columnSpec.type == .link, let target = columnSpec.linkTarget {
                    byTarget[target, default: []].append((table, column))
                } else if columnSpec.type == .mixed {
                    let origin = { (key: Int64) in RowReference(table: name, key: key) }
                    if columnSpec.collection == .single {
                        try transaction.forEachValue(in: table, column: column) { key, value in
                            value.forEachTypedLink { mixed[$0, default: []].append(origin(key)) }
                            return true
                        }
                    } else {
                        for key in try transaction.objectKeys(in: table) {
                            for value in try transaction.collectionElements(in: table, key: key, column: column) {
                                value.forEachTypedLink { mixed[$0, default: []].append(origin(key)) }
                            }
                        }
                    }
                }
            }
        }
        linkColumnsByTarget = byTarget
        mixedOrigins = mixed
    }
}

extension WriteTransaction {
    /// What a property holds on one row, as a list: its one value, or its collection's elements
    /// (a map's values).
    fileprivate func storedValues(of property: PropertyInfo, column: Int, in table: TableHandle, key: Int64) throws(FloeError) -> [Value] {
        property.type.collection == .single
            ? [try value(in: table, key: key, column: column)]
            : try collectionElements(in: table, key: key, column: column)
    }
}

extension Value {
    /// Calls `body` with every object this value links to by table and key, nested collections included.
    func forEachTypedLink(_ body: (RowReference) -> Void) {
        switch self {
        case .typedLink(let table, let key): body(RowReference(table: table, key: key))
        case .list(let values): for value in values { value.forEachTypedLink(body) }
        case .dictionary(let entries): for entry in entries { entry.value.forEachTypedLink(body) }
        default: break
        }
    }
}
