@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The model classes of a realm, as Realm describes them.
///
/// ```swift
/// let schema = await realm.schema
/// for objectSchema in schema.objectSchema { print(objectSchema.className) }
/// ```
public struct Schema: Sendable, CustomStringConvertible {
    /// Every class's schema, by class name.
    public let objectSchema: [ObjectSchema]

    init(objectSchema: [ObjectSchema]) {
        self.objectSchema = objectSchema.sorted { $0.className < $1.className }
    }

    /// The schema of the class named `className`, or nil.
    public subscript(className: String) -> ObjectSchema? {
        objectSchema.first { $0.className == className }
    }

    /// The names of the classes in the schema.
    public var description: String {
        "Schema {\n" + objectSchema.map { "\t\($0.className)" }.joined(separator: "\n") + "\n}"
    }
}
