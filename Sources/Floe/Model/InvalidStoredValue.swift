@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A stored value that its Swift type cannot hold: an enum's raw value that names no case (left
/// by an older build whose enum had more cases, or by another class stored under the same
/// name), a failable type projection's value with no mapping (a `URL` from `"http://[bad"`).
///
/// The getter that meets one cannot throw, so it works as a read of damaged bytes does: the
/// typed error goes to the object's source (the enclosing `read { }` or write throws it, and
/// `checkIntegrity()` reports it) and the getter answers a placeholder, which therefore never
/// leaves that boundary.
///
/// ```swift
/// if let status = Self(rawValue: RawValue._floeDecode(stored)) { return status }
/// return InvalidStoredValue.placeholder(for: stored, expected: "a raw value of a \(Self.self) case",
///                                       validValue: { Self(rawValue: RawValue._floeDecode($0)) },
///                                       fallback: { allCases.first! })
/// ```
enum InvalidStoredValue {
    /// Records the typed error naming the class, the property and the value, and answers what
    /// the read returns in its place: the property's declared initial value when it is valid
    /// (a new instance holds it), else `fallback()`.
    ///
    /// A value read from no managed object has no boundary to throw from; only values checked
    /// already (``_PropertyType/acceptsValue``) are decoded that way, so none gets here.
    static func placeholder<T>(for stored: _FloeValue, expected: String, validValue: (_FloeValue) -> T?, fallback: () -> T) -> T {
        let parent = stored.parent
        let property = parent.flatMap { parent in stored.propertyColumn.flatMap { parent.tableBinding.propertyOfColumn[$0] } }
        let error = FloeError.typeMismatch(table: parent?.className ?? "\(T.self)",
                                           column: property.map { parent!.tableBinding.schema.properties[$0].name } ?? "(value)",
                                           expected: expected,
                                           value: stored.value.debugText.replacingOccurrences(of: "\"", with: "'"))
        parent?.source.recordInvalidValue(error)
        // Only the property's own value has a declared initial value of this type; a list's,
        // set's or map's element does not.
        if let parent, let property, stored.column >= 0 {
            let schema = parent.tableBinding.schema
            if let declared = validValue(schema.properties[property].accessor.unmanagedValue(schema.type.init())) {
                return declared
            }
        }
        return fallback()
    }
}
