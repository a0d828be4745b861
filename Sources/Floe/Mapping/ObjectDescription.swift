import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Renders objects and collections the way Realm's `description` does: the class, each
/// persisted property with its value, collections element by element, and linked objects
/// by class and primary key (embedded objects in full, since only their owner shows them).
enum ObjectDescription {
    static func describe(_ object: ObjectBase, indent: Int) -> String {
        guard let schema = try? SchemaDiscovery.schema(for: type(of: object)) else { return "\(type(of: object))" }
        if object.isInvalidated { return "[invalid object]" }
        let tabs = String(repeating: "\t", count: indent + 1)
        var text = schema.className + " {\n"
        for property in schema.properties where !property.isComputed {
            text += tabs + property.name + " = " + describe(value: property.accessor.swiftValue(object), indent: indent + 1) + ";\n"
        }
        return text + String(repeating: "\t", count: indent) + "}"
    }

    static func describe(value: Any, indent: Int) -> String {
        switch value {
        case let object as ObjectBase: return reference(to: object, indent: indent)
        case let collection as any DescribableCollection: return collection.describe(indent: indent)
        case let string as String: return string
        case let date as Date: return date.floeDescription
        case let mixed as AnyRealmValue: return describe(mixed: mixed, indent: indent)
        default:
            if ValueCoercion.isNull(value) { return "nil" }
            // Optionals of plain values print their payload, as Realm does.
            if let payload = Mirror(reflecting: value).children.first?.value, Mirror(reflecting: value).displayStyle == .optional {
                return describe(value: payload, indent: indent)
            }
            return "\(value)"
        }
    }

    /// How deep embedded objects (and the collections holding them) are shown in full;
    /// deeper ones show as `Class {…}`, so that how deep they nest never decides how deep
    /// describing them recurses.
    static let maximumDepth = 100

    /// A linked object: its class and primary key; an embedded object in full.
    static func reference(to object: ObjectBase, indent: Int) -> String {
        guard let schema = try? SchemaDiscovery.schema(for: type(of: object)) else { return "\(type(of: object))" }
        if schema.kind == .embedded {
            return indent < maximumDepth ? describe(object, indent: indent) : "\(schema.className) {…}"
        }
        if object.isInvalidated { return "[invalid object]" }
        guard let index = schema.primaryKeyIndex else { return "\(schema.className) object" }
        let key = describe(value: schema.properties[index].accessor.swiftValue(object), indent: indent)
        return "\(schema.className)(\(schema.properties[index].name): \(key))"
    }

    static func describe(mixed: AnyRealmValue, indent: Int) -> String {
        switch mixed {
        case .none: return "nil"
        case .object(let object): return reference(to: object, indent: indent)
        case .string(let string): return string
        case .list(let list): return describe(value: list, indent: indent)
        case .dictionary(let map): return describe(value: map, indent: indent)
        default:
            // The payload alone (`3`, not `int(3)`), as Realm prints mixed values.
            guard let payload = Mirror(reflecting: mixed).children.first?.value else { return "\(mixed)" }
            return describe(value: payload, indent: indent)
        }
    }

    /// `List<String> <0x…> (\n\t[0] a,\n\t[1] b\n)`.
    /// `objectsInFull`: results show their objects whole; an object's lists show links.
    static func collection(named name: String, identity: AnyObject, elements: [(label: String, value: Any)], indent: Int,
                           objectsInFull: Bool = false) -> String {
        let address = "0x" + String(UInt(bitPattern: Unmanaged.passUnretained(identity).toOpaque()), radix: 16)
        guard !elements.isEmpty else { return "\(name) <\(address)> (\n\(String(repeating: "\t", count: indent)))" }
        let tabs = String(repeating: "\t", count: indent + 1)
        let lines = elements.map { element in
            if objectsInFull, let object = element.value as? ObjectBase {
                return tabs + "[\(element.label)] " + describe(object, indent: indent + 1)
            }
            return tabs + "[\(element.label)] " + describe(value: element.value, indent: indent + 1)
        }
        return "\(name) <\(address)> (\n" + lines.joined(separator: ",\n") + "\n" + String(repeating: "\t", count: indent) + ")"
    }
}

/// A collection that renders itself inside an object's description.
protocol DescribableCollection {
    func describe(indent: Int) -> String
}

extension ObjectBase: CustomStringConvertible {
    /// Every persisted property with its value, like Realm's:
    ///
    /// ```
    /// Dog {
    ///     name = Rex;
    ///     toys = List<String> <0x600003e0a0a0> (
    ///         [0] ball
    ///     );
    ///     owner = Person(id: 1);
    /// }
    /// ```
    public var description: String { ObjectDescription.describe(self, indent: 0) }
}
