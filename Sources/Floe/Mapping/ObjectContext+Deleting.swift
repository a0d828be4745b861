import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Deleting objects: their embedded objects go with them, and so do the objects their cascading
// links reach that nothing else links to (DeletionPlan); links to them become nil.

extension ObjectContext {
    /// Deletes a managed object of this realm (and the embedded objects it owns, and what its
    /// cascading links reach that nothing else links to); links to it become nil.
    func delete(_ object: ObjectBase) throws(FloeError) {
        try delete([object])
    }

    /// Deletes managed objects of this realm together: every object is checked before any is
    /// deleted, and the delete rules apply to all of them at once (a target that only these
    /// objects link to goes, whichever of them links to it).
    func delete(_ objects: [ObjectBase]) throws(FloeError) {
        _ = try requireWrite()
        var roots: [(binding: TableBinding, key: Int64)] = []
        for object in objects {
            roots.append(try deletableRow(of: object))
        }
        try deleteRows(roots)
    }

    /// The row of an object that may be deleted, or the error that says why it may not.
    private func deletableRow(of object: ObjectBase) throws(FloeError) -> (binding: TableBinding, key: Int64) {
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
        guard try requireWrite().contains(binding.key, in: binding.tableBinding.table) else {
            throw .objectNotInRealm(className: binding.className, detail: "was already deleted (or its write was rolled back); check isInvalidated first")
        }
        return (binding.tableBinding, binding.key)
    }

    /// Deletes one row and what goes with it. Returns whether the row was there to delete.
    @discardableResult
    func deleteRow(_ binding: TableBinding, key: Int64) throws(FloeError) -> Bool {
        guard try requireWrite().contains(key, in: binding.table) else { return false }
        try deleteRows([(binding, key)])
        return true
    }

    /// Deletes rows present in the open write, with the embedded objects they own and what
    /// their cascading links reach (``planDeletion(of:)``); links to every deleted row go.
    private func deleteRows(_ roots: [(binding: TableBinding, key: Int64)]) throws(FloeError) {
        let transaction = try requireWrite()
        let plan = try planDeletion(of: roots)
        for unit in plan.unitsInOrder {
            // Each embedded object after those it owns, owners last, as recursion would.
            for (owner, ownerKey) in unit.rows.reversed() where try transaction.contains(ownerKey, in: owner.table) {
                try transaction.deleteObject(from: owner.table, key: ownerKey)
                try unlinkIncoming(table: owner.table.name, key: ownerKey)
            }
        }
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
        for property in binding.schema.properties where property.type.objectType != nil {
            if property.deleteRule == .cascade { return false }
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
