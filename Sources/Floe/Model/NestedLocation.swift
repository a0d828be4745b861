@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Where a list or dictionary nested in a mixed property lives: the owning object's
/// property, and the path of indexes and keys down to it.
///
/// Nested collections are stored inline in their property's value, so reading one reads
/// the property, and changing one element rewrites the property (inside a write).
struct NestedLocation {
    enum Step: Hashable {
        case index(Int)
        case key(String)
    }

    let parent: ObjectBinding
    let column: Int
    let path: [Step]

    func appending(_ step: Step) -> NestedLocation {
        NestedLocation(parent: parent, column: column, path: path + [step])
    }

    /// The nested value now (`.null` when the path no longer leads anywhere).
    func read() -> Value {
        var value = parent.read(column: column).value
        for step in path {
            switch (step, value) {
            case let (.index(index), .list(values)) where index < values.count: value = values[index]
            case let (.key(key), .dictionary(entries)): value = entries.first { $0.key == key }?.value ?? .null
            default: return .null
            }
        }
        return value
    }

    /// Changes the nested value in place and writes the property back. `unmanagedClass`
    /// names an object not yet in any realm that the change put in, which the write refuses.
    func modify(holding unmanagedClass: String? = nil, _ change: (inout Value) -> Void) {
        var root = parent.read(column: column).value
        Self.modify(&root, at: path[...], change)
        parent.write(unmanagedClass.map { .holdingUnmanagedObject(root, className: $0) } ?? _FloeValue(root), column: column)
    }

    private static func modify(_ value: inout Value, at path: ArraySlice<Step>, _ change: (inout Value) -> Void) {
        guard let step = path.first else { return change(&value) }
        switch (step, value) {
        case (.index(let index), .list(var values)) where index < values.count:
            modify(&values[index], at: path.dropFirst(), change)
            value = .list(values)
        case (.key(let key), .dictionary(var entries)):
            if let position = entries.firstIndex(where: { $0.key == key }) {
                modify(&entries[position].value, at: path.dropFirst(), change)
                value = .dictionary(entries)
            }
        default:
            preconditionFailure("A nested collection of '\(path)' no longer exists.")
        }
    }

    var name: String { "\(parent.className).\(parent.tableBinding.propertyName(ofColumn: column))" }
}
