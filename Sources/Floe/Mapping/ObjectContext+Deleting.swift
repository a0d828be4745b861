import Foundation

// Deleting objects: their embedded objects go with them, and links to them become nil.

extension ObjectContext {
    /// Deletes a managed object of this realm (and the embedded objects it owns); links to
    /// it become nil.
    func delete(_ object: ObjectBase) throws(FloeError) {
        _ = try requireWrite()
        if object is AsymmetricObject {
            throw .invalidOperation(className: type(of: object).className(), detail: "asymmetric objects cannot be deleted; they leave through realm.outbox(_:) once acknowledged")
        }
        guard let binding = object._floeBinding, owns(object) else {
            throw .objectNotInRealm(className: type(of: object).className(), detail: object._floeBinding == nil
                ? "is not managed; only managed objects can be deleted" : "belongs to another realm")
        }
        if binding.tableBinding.schema.kind == .embedded {
            throw .invalidOperation(className: binding.className, detail: "embedded objects are deleted with their owner, or by removing them from it")
        }
        if binding.tableBinding.schema.kind == .asymmetric {
            throw .invalidOperation(className: binding.className, detail: "asymmetric objects cannot be deleted; they leave through realm.outbox(_:) once acknowledged")
        }
        guard try deleteRow(binding.tableBinding, key: binding.key) else {
            throw .objectNotInRealm(className: binding.className, detail: "was already deleted (or its write was rolled back); check isInvalidated first")
        }
    }

    /// Deletes one row: first the embedded objects it owns (and theirs), then the row, then
    /// every link to it. Returns whether the row was there to delete.
    @discardableResult
    func deleteRow(_ binding: TableBinding, key: Int64) throws(FloeError) -> Bool {
        let transaction = try requireWrite()
        guard try transaction.contains(key, in: binding.table) else { return false }
        // The rows go owners' last, each embedded object after those it owns, as recursion
        // would delete them; found with a worklist, since embedded objects may nest as deep
        // as the user likes. Walking the owned objects last-first and reversing the walk gives
        // exactly that order.
        var walk: [(binding: TableBinding, key: Int64)] = []
        var pending = [(binding: binding, key: key)]
        while let (owner, ownerKey) = pending.popLast() {
            walk.append((owner, ownerKey))
            for (index, property) in owner.schema.properties.enumerated() {
                guard let target = property.type.objectType, try SchemaDiscovery.schema(for: target).kind == .embedded,
                      let targetBinding = try tableBinding(for: target)
                else { continue }
                let column = owner.columnOfProperty[index]
                let owned: [Value] = property.type.collection == .single
                    ? [try transaction.value(in: owner.table, key: ownerKey, column: column)]
                    : try transaction.collectionElements(in: owner.table, key: ownerKey, column: column)
                for case .link(let ownedKey) in owned where try transaction.contains(ownedKey, in: targetBinding.table) {
                    pending.append((targetBinding, ownedKey))
                }
            }
        }
        for (owner, ownerKey) in walk.reversed() where try transaction.contains(ownerKey, in: owner.table) {
            try transaction.deleteObject(from: owner.table, key: ownerKey)
            try unlinkIncoming(table: owner.table.name, key: ownerKey)
        }
        return true
    }

    /// Nils every to-one link to the object `key` of `table`.
    private func unlinkIncoming(table target: String, key: Int64) throws(FloeError) {
        let transaction = try requireWrite()
        for name in try transaction.tableNames() {
            let table = try transaction.table(named: name)
            let spec = try transaction.spec(of: table)
            for (column, columnSpec) in spec.columns.enumerated() where columnSpec.type == .mixed && columnSpec.collection == .single {
                var holding: [(Int64, Value)] = []
                try transaction.forEachValue(in: table, column: column) { source, value in
                    let cleared = value.clearingLinks(to: target, key: key)
                    if cleared != value { holding.append((source, cleared)) }
                    return true
                }
                for (source, cleared) in holding { try transaction.setValue(cleared, in: table, key: source, column: column) }
            }
            for (column, columnSpec) in spec.columns.enumerated() where columnSpec.type == .link && columnSpec.linkTarget == target {
                // The column's backlinks name exactly the objects that link here.
                let origins = try transaction.linkingObjects(in: table, column: column, to: key)
                for source in Set(origins).sorted() {
                    switch columnSpec.collection {
                    case .single:
                        try transaction.setValue(.null, in: table, key: source, column: column)
                    case .map:
                        // Maps keep the key with a null value, as Realm's do.
                        for entry in try transaction.mapEntries(in: table, key: source, column: column) where entry.value == .link(key) {
                            try transaction.mapSet(.null, forKey: entry.key, in: table, key: source, column: column)
                        }
                    case .list, .set:
                        let elements = try transaction.collectionElements(in: table, key: source, column: column)
                        for position in elements.indices.reversed() where elements[position] == .link(key) {
                            try transaction.collectionRemove(at: position, in: table, key: source, column: column)
                        }
                    }
                }
            }
        }
    }

    /// Deletes every object of class `type` at once, without visiting each row, when that
    /// changes nothing else: no class links to it (a link column aimed at it, or a mixed
    /// property that could hold a link to it, in a table with objects), and it owns no
    /// embedded objects. Answers false, having changed nothing, when any of that does not
    /// hold; the caller then deletes object by object.
    func deleteEveryObjectAtOnce(of type: ObjectBase.Type) throws(FloeError) -> Bool {
        let transaction = try requireWrite()
        guard let binding = try tableBinding(for: type), binding.schema.kind == .topLevel else { return false }
        for property in binding.schema.properties {
            if let target = property.type.objectType, try SchemaDiscovery.schema(for: target).kind == .embedded { return false }
        }
        let name = binding.table.name
        for other in try transaction.tableNames() {
            let table = try transaction.table(named: other)
            let spec = try transaction.spec(of: table)
            for column in spec.columns {
                if column.type == .link && column.linkTarget == name { return false }
                if column.type == .mixed, try transaction.objectCount(in: table) > 0 { return false }
            }
        }
        try transaction.removeAllObjects(from: binding.table)
        return true
    }

    /// Deletes every object of every model table.
    func deleteAll() throws(FloeError) {
        let transaction = try requireWrite()
        for name in try transaction.tableNames() {
            try transaction.removeAllObjects(from: transaction.table(named: name))
        }
    }
}

extension Value {
    /// This value with every link to the object `key` of `table` made null, nested
    /// collections included.
    func clearingLinks(to table: String, key: Int64) -> Value {
        switch self {
        case .typedLink(let target, let linked) where target == table && linked == key: return .null
        case .list(let values): return .list(values.map { $0.clearingLinks(to: table, key: key) })
        case .dictionary(let entries):
            return .dictionary(entries.map { MapEntry(key: $0.key, value: $0.value.clearingLinks(to: table, key: key)) })
        default: return self
        }
    }
}
