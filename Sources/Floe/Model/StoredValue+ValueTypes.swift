import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The stored form of Floe's value types, for tools that read and write a file by its stored
// schema (the `floe` tool): they print and parse these types as the types themselves do
// (`Decimal128`'s decimal text, `ObjectId`'s hex digits, `UUID`'s string), never as raw bits.

@_spi(Engine) extension Decimal128 {
    /// The number a stored `decimal128` value holds; nil for a value of another kind.
    ///
    /// ```swift
    /// Decimal128(storedValue: try snapshot.value(in: table, key: key, column: 0))?.description   // "12.5"
    /// ```
    public init?(storedValue: Value) {
        guard case .decimal128 = storedValue else { return nil }
        self = Decimal128._floeDecode(_FloeValue(storedValue))
    }

    /// The value a `decimal128` column stores for this number.
    ///
    /// ```swift
    /// try transaction.setValue(try Decimal128(string: "12.5").storedValue, in: table, key: key, column: 0)
    /// ```
    public var storedValue: Value { _floeEncoded.value }
}

@_spi(Engine) extension ObjectId {
    /// The identifier a stored `objectId` value holds; nil for a value of another kind.
    ///
    /// ```swift
    /// ObjectId(storedValue: try snapshot.value(in: table, key: key, column: 0))?.stringValue
    /// ```
    public init?(storedValue: Value) {
        guard case .objectId = storedValue else { return nil }
        self = ObjectId._floeDecode(_FloeValue(storedValue))
    }

    /// The value an `objectId` column stores for this identifier.
    ///
    /// ```swift
    /// let stored = try ObjectId(string: "5f5e1000563412907800002a").storedValue
    /// ```
    public var storedValue: Value { _floeEncoded.value }
}

@_spi(Engine) extension UUID {
    /// The UUID a stored `uuid` value holds; nil for a value of another kind.
    ///
    /// ```swift
    /// UUID(storedValue: try snapshot.value(in: table, key: key, column: 0))?.uuidString
    /// ```
    public init?(storedValue: Value) {
        guard case .uuid = storedValue else { return nil }
        self = UUID._floeDecode(_FloeValue(storedValue))
    }

    /// The value a `uuid` column stores for this UUID.
    ///
    /// ```swift
    /// let stored = UUID(uuidString: "E621E1F8-C36C-495A-93FC-0C247A3E6E5F")!.storedValue
    /// ```
    public var storedValue: Value { _floeEncoded.value }
}
