import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Storing objects: add, create and upsert, with the objects they reach.

extension ObjectContext {
    /// Adds an unmanaged object (no-op for one already in this realm), and the unmanaged
    /// objects it links to.
    func add(_ object: ObjectBase, update: ExistingObjectPolicy) throws(FloeError) {
        if object._floeBinding != nil {
            if owns(object) { return }
            throw .objectNotInRealm(className: type(of: object).className(), detail: "is managed by another realm; use create(_:value:) to copy it")
        }
        // The class's binding, cached by the context, answers without the schema registry's lock.
        let schema: ObjectSchemaInfo
        if let binding = try tableBinding(for: type(of: object)) {
            // The typed row path: an object of a class with only plain scalar properties, whose
            // key is above every key of its table, goes straight into the table's last leaf.
            if !session.isCopyingObjects, let plan = insertPlan(for: binding), let key = plan.append(object) {
                plan.attach(object, key: key, source: self)
                return
            }
            schema = binding.schema
        } else {
            schema = try SchemaDiscovery.schema(for: type(of: object))
        }
        switch schema.kind {
        case .embedded:
            throw .invalidOperation(className: schema.className, detail: "embedded objects cannot be added directly; assign them to a parent's property")
        case .asymmetric:
            throw .invalidOperation(className: schema.className, detail: "asymmetric objects cannot be added; create them with create(_:value:)")
        case .topLevel:
            break
        }
        _ = try insert(object, update: update)
    }

    /// The typed insert plan of `binding`'s class in the open write, made on first use; nil
    /// when the class cannot take the typed path or no write is open.
    private func insertPlan(for binding: TableBinding) -> TypedInsertPlan? {
        if let known = session.knownInsertPlan(for: binding) { return known }
        guard let transaction else { return nil }
        return session.makeInsertPlan(for: binding, in: transaction)
    }

    /// Stores an unmanaged object (top-level or embedded), and the unmanaged objects it
    /// reaches, and returns its key.
    func insert(_ object: ObjectBase, update: ExistingObjectPolicy) throws(FloeError) -> Int64 {
        let (key, links) = try insertRow(object, update: update)
        try storeLinks(links)
        return key
    }

    /// Stores an unmanaged object's row and attaches the object, so that a graph linking back
    /// to it finds it managed; returns its key and what its links still need.
    func insertRow(_ object: ObjectBase, update: ExistingObjectPolicy) throws(FloeError) -> (key: Int64, links: LinkFrame) {
        let type = Swift.type(of: object)
        if session.isCopying(object) {
            throw .cyclicValue(className: try SchemaDiscovery.schema(for: type).className)
        }
        let binding = try ensureTable(for: type)
        let values = binding.schema.accessors.map { $0.unmanagedValue(object) }
        let key = try store(values, binding: binding, update: update)
        attach(object, key: key, binding: binding)
        // The links and collections it held are in `values` now, until written.
        let isStoredAfterRow = binding.isStoredAfterRow
        for index in isStoredAfterRow.indices where isStoredAfterRow[index] {
            binding.schema.accessors[index].forgetUnmanagedValue(object)
        }
        return (key, LinkFrame(values: values, binding: binding, key: key, update: update))
    }

    /// Creates (or, with a primary key and an update policy, updates) an object from a value:
    /// a dictionary, an array in property order, or another object; nested values create
    /// the objects they describe.
    func create<T: ObjectBase>(_ type: T.Type, value: Any, update: ExistingObjectPolicy) throws(FloeError) -> T {
        let schema = try SchemaDiscovery.schema(for: type)
        if schema.kind == .embedded {
            throw .invalidOperation(className: schema.className, detail: "embedded objects cannot be created on their own; create them as part of a parent")
        }
        if schema.kind == .asymmetric && update != .error {
            throw .invalidOperation(className: schema.className, detail: "asymmetric objects cannot be updated, only created: call create(_:value:) without update")
        }
        let key = try createRow(type, value: value, update: update)
        return materialize(type, key: key, binding: try ensureTable(for: type))
    }

    /// The row behind `create`, for top-level and (nested) embedded objects alike.
    func createRow(_ type: ObjectBase.Type, value: Any, update: ExistingObjectPolicy) throws(FloeError) -> Int64 {
        let schema = try SchemaDiscovery.schema(for: type)
        // An object given as the value is copied, never managed itself: a link from the graph
        // back to it could only be met by copying it again, without end.
        let source = ValueCoercion.isNestedValue(value) ? nil : (value as? ObjectBase).map(ObjectIdentifier.init)
        try session.enterCopy(of: source, className: schema.className)
        defer { session.leaveCopy(of: source) }
        let binding = try ensureTable(for: type)
        let given = try ValueCoercion.propertyValues(for: schema, from: value, context: self)
        let defaults = ValueCoercion.defaults(for: schema)
        let values = schema.properties.indices.map { given[$0] ?? defaults[$0] }
        let key = try store(values, binding: binding, update: update, given: given)
        try storeLinks(LinkFrame(values: values, binding: binding, key: key, update: update, given: given))
        return key
    }

    /// Phase one: the row, with links left for `storeLinks`.
    private func store(_ values: [_FloeValue], binding: TableBinding, update: ExistingObjectPolicy, given: [_FloeValue?]? = nil) throws(FloeError) -> Int64 {
        let isLink = binding.isStoredAfterRow
        let scalars = values.enumerated().map { index, value in isLink[index] ? .null : value.value }
        // A plain insert reads the mask only for its primary key, which is always given.
        if given == nil && update == .error { return try upsert(values: scalars, binding: binding, update: update, given: nil) }
        let mask: [Value?] = values.indices.map { index in
            if isLink[index] { return nil }
            if let given { return given[index] == nil ? nil : scalars[index] }
            return scalars[index]
        }
        return try upsert(values: scalars, binding: binding, update: update, given: mask)
    }

    /// Whether embedded object `key` holds what `value` (an unmanaged embedded object or the
    /// value to create one from) describes: the same value in each property, and no links or
    /// collection elements on either side (those are compared by writing them).
    func embedded(_ type: ObjectBase.Type, key: Int64, holds value: _FloeValue) throws(FloeError) -> Bool {
        let schema = try SchemaDiscovery.schema(for: type)
        guard let binding = try tableBinding(for: type) else { return false }
        let given: [_FloeValue?]
        if let object = value.object {
            guard object._floeBinding == nil else { return false }
            given = schema.accessors.map { $0.unmanagedValue(object) }
        } else if let nested = value.valueToCreate {
            given = try ValueCoercion.propertyValues(for: schema, from: nested, context: self)
        } else {
            return false
        }
        let defaults = ValueCoercion.defaults(for: schema)
        let transaction = try requireWrite()
        for (index, property) in schema.properties.enumerated() where !property.isComputed {
            let wanted = given[index] ?? defaults[index]
            let column = binding.columnOfProperty[index]
            if property.type.collection != .single {
                guard wanted.elements?.isEmpty ?? true, try transaction.collectionCount(in: binding.table, key: key, column: column) == 0 else { return false }
                continue
            }
            if property.type.objectType != nil || property.type.columnType == .mixed {
                guard wanted.object == nil, wanted.valueToCreate == nil, wanted.value == .null,
                      try transaction.value(in: binding.table, key: key, column: column) == .null else { return false }
                continue
            }
            guard try transaction.value(in: binding.table, key: key, column: column) == wanted.value else { return false }
        }
        return true
    }

    /// Inserts a row, or updates the row with the same primary key per `update`.
    /// `given` marks which properties the caller supplied (nil: all).
    private func upsert(values: [Value], binding: TableBinding, update: ExistingObjectPolicy, given: [Value?]?) throws(FloeError) -> Int64 {
        let transaction = try requireWrite()
        let schema = binding.schema
        if let pk = schema.primaryKeyIndex, update != .error,
           let existing = try transaction.findObjects(in: binding.table, column: binding.columnOfProperty[pk], equalTo: values[pk], limit: 1).first {
            for (index, value) in values.enumerated() where index != pk {
                if let given, given[index] == nil { continue }
                let column = binding.columnOfProperty[index]
                if update == .modified, try transaction.value(in: binding.table, key: existing, column: column) == value { continue }
                do {
                    try transaction.setValue(value, in: binding.table, key: existing, column: column)
                } catch {
                    throw error.naming(binding, column: column)
                }
            }
            return existing
        }
        var row = [Value](repeating: .null, count: binding.storedColumnCount)
        for (index, value) in values.enumerated() where binding.columnOfProperty[index] < binding.storedColumnCount {
            row[binding.columnOfProperty[index]] = value
        }
        do {
            return try transaction.insertObject(into: binding.table, values: row)
        } catch let error {
            if case .duplicatePrimaryKey(_, _, let value) = error, let pk = schema.primaryKeyIndex {
                if let given, given[pk] == nil {
                    throw .primaryKeyNotGiven(className: schema.className, property: schema.properties[pk].name, defaultValue: value)
                }
                throw .duplicatePrimaryKey(table: schema.className, column: schema.properties[pk].name, value: value)
            }
            if case .typeMismatch(_, let column, _, _) = error, let index = binding.propertyOfColumnNamed(column) {
                throw error.naming(binding, column: binding.columnOfProperty[index])
            }
            throw error
        }
    }
}

/// A class's typed insert plan (or nil: the class takes the general path) for one write.
final class InsertPlanEntry {
    let binding: TableBinding
    let plan: TypedInsertPlan?

    init(binding: TableBinding, plan: TypedInsertPlan?) {
        self.binding = binding
        self.plan = plan
    }
}

/// A top-level class whose stored properties are all of the ``TypedFieldKind`` types
/// (`Int`, `Int64`, `Bool`, `Double`, `String` and the optional `Int`, `Double`, `String`),
/// compiled for one write into one typed field read per column: an insert reads each field
/// in place and writes it into the table's last leaf (``WriteTransaction/appendTypedRow(_:key:_:)``),
/// with no `Value`, no array of values and no check that the layout already made. The
/// column's type and nullability are checked once here; what depends on the value is checked
/// per object (a string's size here, the key's uniqueness by the engine: a key above every
/// key of the table needs no search). Anything else — a link, a collection, a mixed value, an
/// embedded object, a narrower integer, an indexed column, a key the table may hold, a full
/// leaf — takes the general path, which checks and reports as before.
final class TypedInsertPlan {
    let binding: TableBinding
    let layout: TypedAppendLayout
    let transaction: WriteTransaction
    /// One per stored column, in column order.
    let fields: [TypedField]
    /// The field holding the object key (an integer primary key), if the class has one.
    let keyField: TypedField?
    /// The string fields, whose size is checked per object before anything is written.
    let stringFields: [TypedField]
    /// For every property (computed ones too): where its field's column sits in an instance,
    /// and the column it reads once the object is managed.
    let columnSlots: [(offset: Int, column: Int)]

    init?(binding: TableBinding, transaction: WriteTransaction) {
        guard binding.schema.kind == .topLevel else { return nil }
        var fields: [TypedField] = []
        for column in 0..<binding.storedColumnCount {
            guard let property = binding.propertyOfColumn[column], !binding.schema.properties[property].isComputed,
                  binding.schema.properties[property].type.collection == .single,
                  let field = binding.schema.accessors[property].typedField else { return nil }
            fields.append(field)
        }
        guard let layout = try? transaction.typedAppendLayout(for: binding.table, kinds: fields.map(\.kind.columnKind)) else { return nil }
        self.binding = binding
        self.layout = layout
        self.transaction = transaction
        columnSlots = binding.schema.accessors.indices.map { (binding.schema.accessors[$0].columnOffset, binding.columnOfProperty[$0]) }
        self.fields = fields
        keyField = layout.keyColumn.map { fields[$0] }
        stringFields = fields.filter { $0.kind == .string || $0.kind == .optionalString }
    }

    /// Makes `object`, just stored as `key`, a managed object of `source` (what
    /// ``ObjectContext/attach(_:key:binding:)`` does, with the fields' places worked out once).
    @inline(__always)
    func attach(_ object: ObjectBase, key: Int64, source: ObjectContext) {
        object._floeBinding = ObjectBinding(source: source, tableBinding: binding, key: key)
        let base = Unmanaged.passUnretained(object).toOpaque()
        for slot in columnSlots { (base + slot.offset).storeBytes(of: slot.column, as: Int.self) }
    }

    /// Stores `object` (unmanaged, of the plan's class) and returns its key; nil, having
    /// stored nothing, when the typed path does not apply to it.
    @inline(__always)
    func append(_ object: ObjectBase) -> Int64? {
        for field in stringFields where field.stringSize(object) > WriteTransaction.maximumValueSize { return nil }
        let key = keyField.map { $0.int(object) }
        let fields = self.fields
        return layout.appendRow(in: transaction, key: key) { writer in
            for field in fields {
                switch field.kind {
                case .int, .int64: writer.append(field.int(object))
                case .optionalInt: writer.append(field.optionalInt(object))
                case .bool: writer.append(field.bool(object))
                case .double: writer.append(field.double(object))
                case .optionalDouble: writer.append(field.optionalDouble(object))
                case .string: writer.append(field.string(object))
                case .optionalString: writer.append(field.optionalString(object))
                }
            }
        }
    }
}
