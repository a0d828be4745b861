@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The reads and checks that every managed collection shares.
enum ManagedCollection {
    static func count(_ parent: ObjectBinding, _ column: Int) -> Int {
        countIfReadable(parent, column) ?? 0
    }

    /// The count, or nil when damage kept it from being read (the damage is recorded).
    private static func countIfReadable(_ parent: ObjectBinding, _ column: Int) -> Int? {
        do {
            return try parent.source.currentReader().collectionCount(in: parent.tableBinding.table, key: parent.key, column: column)
        } catch {
            return parent.source.readFailed(error, reading: name(parent, column), placeholder: nil)
        }
    }

    static func element(_ parent: ObjectBinding, _ column: Int, at position: Int, kind: String) -> _FloeValue {
        checkIndex(parent, column, position, allowEnd: false, operation: "read")
        do {
            let value = try parent.source.currentReader().collectionElement(in: parent.tableBinding.table, key: parent.key, column: column, at: position)
            return .element(value, parent: parent, collectionColumn: column)
        } catch {
            // An element that cannot be read answers the element type's default (`.null` makes a
            // placeholder object for object elements); the enclosing read throws the damage.
            let property = parent.tableBinding.propertyOfColumn[column].map { parent.tableBinding.schema.properties[$0] }
            let placeholder = property.map { $0.type.isOptional ? Value.null : Value.defaultValue(for: $0.type.columnType) } ?? .null
            return parent.source.readFailed(error, reading: "\(name(parent, column))' at '\(position)", placeholder: _FloeValue(placeholder))
        }
    }

    static func checkIndex(_ parent: ObjectBinding, _ column: Int, _ index: Int, allowEnd: Bool, operation: String) {
        // Damage already recorded: the read that follows answers a placeholder.
        guard let count = countIfReadable(parent, column) else { return }
        precondition(index >= 0 && (index < count || (allowEnd && index == count)),
                     "Index \(index) is out of range for '\(name(parent, column))' of the \(parent.className) object with key \(parent.key), which holds \(count) elements (\(operation)).")
    }

    static func change(_ parent: ObjectBinding, _ column: Int, _ body: (any CollectionEditing) throws(FloeError) -> Void) {
        precondition(!parent.source.isFrozen, "Cannot modify '\(name(parent, column))' of a frozen \(parent.className) object.")
        parent.source.changeCollection(binding: parent, column: column, body)
    }

    static func name(_ parent: ObjectBinding, _ column: Int) -> String {
        "\(parent.className).\(parent.tableBinding.propertyName(ofColumn: column))"
    }

    /// Equal values, or the same stored (or unmanaged) object.
    static func same(_ a: _FloeValue, _ b: _FloeValue) -> Bool {
        if let x = a.object, let y = b.object { return x.isSameObject(as: y) }
        // The engine's one rule, as a managed set keeps it: 5 and 5.00 are one element, as are two NaNs.
        return a.object == nil && b.object == nil && Value.same(a.value, b.value)
    }
}
