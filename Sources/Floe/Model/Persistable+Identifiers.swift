@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension ObjectId: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .objectId, swiftName: "ObjectId") }
    /// A declared `@Persisted var id: ObjectId` gets a fresh value; `ObjectId()` is all zeros.
    public static func _floeDefault() -> ObjectId { ObjectId.generate() }
    public static func _floeDecode(_ stored: _FloeValue) -> ObjectId {
        guard case .objectId(let word) = stored.value else { return ObjectId() }
        return ObjectId(high: word.high, low: word.low)
    }
    public var _floeEncoded: _FloeValue {
        let words = storageWords
        return _FloeValue(.objectId(Word128(high: words.high, low: words.low)))
    }
}

extension Decimal128: _PersistableSingleValue {
    public static var _floeType: _PropertyType { _PropertyType(columnType: .decimal128, swiftName: "Decimal128") }
    public static func _floeDefault() -> Decimal128 { Decimal128(0) }
    public static func _floeDecode(_ stored: _FloeValue) -> Decimal128 {
        guard case .decimal128(let word) = stored.value else { return Decimal128(0) }
        return Decimal128(high: word.high, low: word.low)
    }
    public var _floeEncoded: _FloeValue {
        let words = storageWords
        return _FloeValue(.decimal128(Word128(high: words.high, low: words.low)))
    }
}
