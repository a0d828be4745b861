import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Turns the loosely typed values of `create(_:value:)` and `Object(value:)` — Swift
/// values, `NSNumber`, `NSNull`, JSON — into stored values, property by property, with a
/// typed error naming the class, property and value for anything that does not fit.
enum ValueCoercion {
    /// The value of each property that `value` supplies (nil where it supplies none). Links
    /// come back as the object to link (`object`) or the value to create it from (`nested`).
    /// `context` is the realm being written (nil for unmanaged objects): objects it does not
    /// manage are copied rather than linked.
    static func propertyValues(for schema: ObjectSchemaInfo, from value: Any, context: ObjectContext?) throws(FloeError) -> [_FloeValue?] {
        var result = [_FloeValue?](repeating: nil, count: schema.properties.count)
        if Swift.type(of: value) is NSDictionary.Type, let dictionary = value as? NSDictionary {
            // Looked up key by key: bridging the whole dictionary to Swift would bridge its
            // nested dictionaries too, without end for one that contains itself.
            for (index, property) in schema.properties.enumerated() where !property.isComputed {
                guard let entry = dictionary.object(forKey: property.name) ?? dictionary.object(forKey: property.persistedName) else { continue }
                result[index] = try coerceProperty(entry, to: property, in: schema.className, context: context)
            }
            return result
        }
        switch value {
        case let dictionary as [String: Any]:
            for (index, property) in schema.properties.enumerated() where !property.isComputed {
                guard let entry = dictionary[property.name] ?? dictionary[property.persistedName] else { continue }
                result[index] = try coerceProperty(entry, to: property, in: schema.className, context: context)
            }
        case let array as [Any]:
            // In declared order, computed properties (linking objects) left out, as in Realm.
            // (Before the object cases: casting an array to a class bridges all of it.)
            let stored = schema.properties.indices.filter { !schema.properties[$0].isComputed }
            guard array.count <= stored.count else {
                throw .invalidOperation(className: schema.className,
                                        detail: "an array of \(array.count) values was given, but \(schema.className) has \(stored.count) persisted properties (an array fills them in declared order)")
            }
            for (index, entry) in zip(stored, array) {
                result[index] = try coerceProperty(entry, to: schema.properties[index], in: schema.className, context: context)
            }
        case _ where isNestedValue(value):
            // Another kind of collection: refused before a cast to a class could bridge it.
            throw .typeMismatch(table: schema.className, column: "(value)", expected: "a dictionary, an array or an object",
                                value: describe(value))
        case let frozen as FrozenObjectSource:
            // A frozen object (from this realm or another): an independent copy of its values.
            return try propertyValues(for: schema, from: frozen.makeObject(), context: context)
        case let object as ObjectBase:
            let other = try SchemaDiscovery.schema(for: type(of: object))
            for (index, property) in schema.properties.enumerated() where !property.isComputed {
                guard let source = other.property(named: property.name), !source.isComputed else { continue }
                let stored = source.accessor.detachedValue(object)
                if property.type.collection != .single {
                    var elements: [_FloeValue] = []
                    for element in stored.elements ?? [] {
                        elements.append(try coerceStored(element, to: property.element, in: schema.className, context: context))
                    }
                    result[index] = .elements(elements, keys: stored.keys)
                } else if property.type.columnType == .mixed {
                    result[index] = stored.object == nil ? stored.detached : try linkValue(stored, for: property, in: schema.className, context: context)
                } else if property.type.columnType == .link && property.type.collection == .single {
                    result[index] = try linkValue(stored, for: property, in: schema.className, context: context)
                } else {
                    result[index] = _FloeValue(try coerce(stored.value, stored: true, to: property, in: schema.className))
                }
            }
        default:
            throw .typeMismatch(table: schema.className, column: "(value)", expected: "a dictionary, an array or an object",
                                value: describe(value))
        }
        return result
    }

    /// Each property's default: what a new unmanaged instance holds.
    static func defaults(for schema: ObjectSchemaInfo) -> [_FloeValue] {
        let prototype = schema.type.init()
        return schema.accessors.map { $0.unmanagedValue(prototype) }
    }

    private static func coerceProperty(_ value: Any, to property: PropertyInfo, in className: String, context: ObjectContext?) throws(FloeError) -> _FloeValue {
        if property.type.collection != .single {
            return try coerceCollection(value, to: property, in: className, context: context)
        }
        if property.type.columnType == .mixed {
            return try coerceMixed(value, to: property, in: className, context: context, level: 0)
        }
        guard property.type.columnType == .link else {
            return _FloeValue(try coerce(value, to: property, in: className))
        }
        // Nested values first: `create` checks how deep they nest before looking inside them.
        if isNestedValue(value) {
            guard isDictionaryOrArray(value) else {
                throw .typeMismatch(table: className, column: property.name, expected: property.type.swiftName.hasSuffix("?") ? property.type.swiftName : property.type.swiftName + "?",
                                    value: describe(value))
            }
            return .toCreate(value)
        }
        if value is FrozenObjectSource { return .toCreate(value) }
        if isNull(value) { return _FloeValue(.null) }
        if let object = value as? ObjectBase {
            return try linkValue(object._floeEncoded, for: property, in: className, context: context)
        }
        if property.type.isMapped, let mapped = value as? any _Persistable, let object = mapped._floeEncoded.object {
            // A value of a type mapped to an embedded object: its persisted object.
            return try linkValue(object._floeEncoded, for: property, in: className, context: context)
        }
        throw .typeMismatch(table: className, column: property.name, expected: property.type.swiftName.hasSuffix("?") ? property.type.swiftName : property.type.swiftName + "?", value: describe(value))
    }

    /// A list, set or map value: an array (or, for maps, a dictionary) of element values, or
    /// another collection.
    private static func coerceCollection(_ value: Any, to property: PropertyInfo, in className: String, context: ObjectContext?) throws(FloeError) -> _FloeValue {
        let element = property.element
        if isNull(value) { return .elements([]) }
        if !isNestedValue(value), let persistable = value as? any _Persistable, Swift.type(of: persistable)._floeType.collection == property.type.collection {
            let encoded = persistable._floeEncoded
            var elements: [_FloeValue] = []
            for stored in encoded.elements ?? [] { elements.append(try coerceStored(stored, to: element, in: className, context: context)) }
            return .elements(elements, keys: encoded.keys)
        }
        if property.type.collection == .map {
            var pairs: [(String, Any)] = []
            if Swift.type(of: value) is NSDictionary.Type, let dictionary = value as? NSDictionary {
                for case let key as String in dictionary.allKeys { pairs.append((key, dictionary.object(forKey: key)!)) }
            } else if let dictionary = value as? [String: Any] {
                pairs = dictionary.map { ($0.key, $0.value) }
            } else {
                throw .typeMismatch(table: className, column: property.name, expected: property.type.swiftName + " (a dictionary)", value: describe(value))
            }
            pairs.sort { $0.0 < $1.0 }
            var elements: [_FloeValue] = []
            for (_, entry) in pairs { elements.append(try coerceProperty(entry, to: element, in: className, context: context)) }
            return .elements(elements, keys: pairs.map(\.0))
        }
        let array: [Any]
        if Swift.type(of: value) is NSArray.Type, let nsArray = value as? NSArray {
            array = (0..<nsArray.count).map { nsArray.object(at: $0) }
        } else if let swiftArray = value as? [Any] {
            array = swiftArray
        } else {
            throw .typeMismatch(table: className, column: property.name, expected: property.type.swiftName + " (an array)", value: describe(value))
        }
        var elements: [_FloeValue] = []
        for entry in array { elements.append(try coerceProperty(entry, to: element, in: className, context: context)) }
        return .elements(elements)
    }

    /// A mixed value: an `AnyRealmValue`, an object, or any scalar Swift (or JSON) value.
    /// `level`: how many arrays and dictionaries enclose it.
    private static func coerceMixed(_ value: Any, to property: PropertyInfo, in className: String, context: ObjectContext?,
                                    level: Int) throws(FloeError) -> _FloeValue {
        if isNestedValue(value) {
            // Arrays and dictionaries (JSON's too) become nested lists and dictionaries, as deep
            // as a mixed value may nest: the depth is checked before anything inside is looked at.
            guard level < Value.maximumNesting else { throw .mixedNestingTooDeep(table: className, column: property.name) }
            if let array = value as? [Any] {
                var values: [Value] = []
                values.reserveCapacity(array.count)
                for element in array {
                    values.append(try coerceMixed(element, to: property, in: className, context: context, level: level + 1).value)
                }
                return _FloeValue(.list(values))
            }
            if let dictionary = value as? [String: Any] {
                var entries: [Value.MapEntry] = []
                entries.reserveCapacity(dictionary.count)
                for key in dictionary.keys.sorted() {
                    let entry = try coerceMixed(dictionary[key]!, to: property, in: className, context: context, level: level + 1)
                    entries.append(Value.MapEntry(key: key, value: entry.value))
                }
                return _FloeValue(.dictionary(entries))
            }
            throw .typeMismatch(table: className, column: property.name, expected: "AnyRealmValue", value: describe(value))
        }
        if isNull(value) { return _FloeValue(.null) }
        if let mixed = value as? AnyRealmValue { return mixed._floeEncoded }
        if let object = value as? Object { return AnyRealmValue.object(object)._floeEncoded }
        if isBoolean(value), let flag = value as? Bool { return _FloeValue(.bool(flag)) }
        if let persistable = value as? any _Persistable, Swift.type(of: persistable)._floeType.collection == .single,
           Swift.type(of: persistable)._floeType.columnType != .link {
            return _FloeValue(try check(persistable._floeEncoded.value, against: property.type, className: className, property: property.name))
        }
        if let number = value as? NSNumber {
            if let int = value as? Int { return _FloeValue(.int(Int64(int))) }
            return _FloeValue(.double(number.doubleValue))
        }
        if let string = value as? NSString { return _FloeValue(.string(string as String)) }
        throw .typeMismatch(table: className, column: property.name, expected: "AnyRealmValue", value: describe(value))
    }

    /// An element already in stored form (taken from another collection).
    private static func coerceStored(_ stored: _FloeValue, to element: PropertyInfo, in className: String, context: ObjectContext?) throws(FloeError) -> _FloeValue {
        if element.type.columnType == .link { return try linkValue(stored, for: element, in: className, context: context) }
        return _FloeValue(try coerce(stored.value, stored: true, to: element, in: className))
    }

    /// A link taken from another object: kept when the target belongs to the realm being
    /// written (or is unmanaged), copied when it belongs to another realm or a frozen version.
    private static func linkValue(_ stored: _FloeValue, for property: PropertyInfo, in className: String, context: ObjectContext?) throws(FloeError) -> _FloeValue {
        guard let object = stored.object else { return _FloeValue(.null) }
        guard let binding = object._floeBinding else { return .object(object, stored: .null) }
        // An embedded object has one owner: the copy gets a copy of it.
        if binding.tableBinding.schema.kind != .embedded {
            if let context, context.owns(object) { return .object(object, stored: .link(binding.key)) }
            // An unmanaged copy (`Dog(value: managedDog)`) links to the same live objects, as in Realm.
            if context == nil && !binding.source.isFrozen { return .object(object, stored: .null) }
        }
        return .toCreate(object)
    }

    static func coerce(_ value: Any, to property: PropertyInfo, in className: String) throws(FloeError) -> Value {
        try coerce(value, stored: false, to: property, in: className)
    }

    private static func coerce(_ value: Any, stored: Bool, to property: PropertyInfo, in className: String) throws(FloeError) -> Value {
        let type = property.type
        // Built only when thrown: describing a value is far slower than converting it.
        func mismatch() -> FloeError {
            .typeMismatch(table: className, column: property.name, expected: type.swiftName, value: describe(value))
        }
        if stored, let stored = value as? Value { return try check(stored, against: type, className: className, property: property.name) }
        // One value for a list, set or map (a migration writing a collection property) is no
        // collection: refused here, before the engine's single-value write would stop on it.
        if type.columnType == .link || type.collection != .single { throw mismatch() }
        if isNull(value) {
            guard type.isOptional else { throw .nullForRequired(table: className, column: property.name) }
            return .null
        }
        // An array or a dictionary is no scalar: refused before a cast could bridge all of it.
        if isNestedValue(value) { throw mismatch() }
        if let persistable = value as? any _Persistable {
            let valueType = Swift.type(of: persistable)._floeType
            if valueType.columnType == type.columnType && valueType.collection == type.collection {
                return try check(persistable._floeEncoded.value, against: type, className: className, property: property.name)
            }
        }
        let number = value as? NSNumber
        switch type.columnType {
        case .bool:
            if isBoolean(value), let flag = value as? Bool { return .bool(flag) }
        case .int:
            guard !isBoolean(value) else { break }
            if let int = value as? Int64 { return try check(.int(int), against: type, className: className, property: property.name) }
            if let int = value as? Int { return try check(.int(Int64(int)), against: type, className: className, property: property.name) }
            if let number, let int = Int64(exactly: number.doubleValue) {
                return try check(.int(int), against: type, className: className, property: property.name)
            }
        case .float:
            if let number, !isBoolean(value) { return .float(number.floatValue) }
        case .double:
            if let number, !isBoolean(value) { return .double(number.doubleValue) }
        case .string:
            if let string = value as? String { return try check(.string(string), against: type, className: className, property: property.name) }
            if let string = value as? NSString { return try check(.string(string as String), against: type, className: className, property: property.name) }
        default:
            break
        }
        throw mismatch()
    }

    /// Range and size checks that the type system does not make.
    private static func check(_ value: Value, against type: _PropertyType, className: String, property: String) throws(FloeError) -> Value {
        switch value {
        case .int(let int) where type.integerBits < 64:
            let limit = Int64(1) << (type.integerBits - 1)
            guard int >= -limit && int < limit else {
                throw .typeMismatch(table: className, column: property, expected: type.swiftName, value: "\(int)")
            }
        case .string(let string) where string.utf8.count > WriteTransaction.maximumValueSize:
            throw .valueTooLarge(table: className, column: property, size: string.utf8.count, limit: WriteTransaction.maximumValueSize)
        case .binary(let bytes) where bytes.count > WriteTransaction.maximumValueSize:
            throw .valueTooLarge(table: className, column: property, size: bytes.count, limit: WriteTransaction.maximumValueSize)
        case .null where !type.isOptional && type.columnType != .mixed:
            throw .nullForRequired(table: className, column: property)
        default:
            break
        }
        if value != .null, let accepts = type.acceptsValue, !accepts(value) {
            throw .typeMismatch(table: className, column: property, expected: type.swiftName, value: value.debugText.replacingOccurrences(of: "\"", with: "'"))
        }
        return value
    }

    /// `NSNull`, or an optional holding nothing. Told by the value's type first: casting a
    /// Swift collection to a class or a protocol (even `is NSNull`) bridges all of it to Foundation.
    static func isNull(_ value: Any) -> Bool {
        let type = Swift.type(of: value)
        if type is NSNull.Type { return true }
        guard type is any OptionalValue.Type, let optional = value as? any OptionalValue else { return false }
        return optional.isNone
    }

    /// A collection, Swift's or Foundation's, told by its type alone: casting one to a class
    /// or a protocol (`as? NSNumber`, `as? ObjectBase`, `as? any _Persistable`) bridges the
    /// whole nested value to Foundation first, which takes time quadratic in its depth and,
    /// thousands of levels down, all the stack. Checked before any such cast.
    static func isNestedValue(_ value: Any) -> Bool {
        let type = Swift.type(of: value)
        return type is NSDictionary.Type || type is NSArray.Type || type is any SwiftCollection.Type
    }

    /// A dictionary with string keys or an array: what nested values are made of.
    private static func isDictionaryOrArray(_ value: Any) -> Bool {
        let type = Swift.type(of: value)
        return type is NSDictionary.Type || type is NSArray.Type || value is [String: Any] || value is [Any]
    }

    /// JSON booleans arrive as boolean `NSNumber`s (type code "c"); they are not integers, and
    /// integers are not booleans even though `NSNumber(value: 1) is Bool` holds.
    private static func isBoolean(_ value: Any) -> Bool {
        if Swift.type(of: value) == Bool.self { return true }
        if let number = value as? NSNumber, Swift.type(of: value) != Int8.self { return String(cString: number.objCType) == "c" }
        return false
    }

    /// A short rendering of a value for an error message: strings cut, collections and objects
    /// named rather than spelled out, dates whatever their interval.
    static func describe(_ value: Any) -> String {
        if Swift.type(of: value) is NSDictionary.Type, let dictionary = value as? NSDictionary { return "a dictionary of \(dictionary.count) entries" }
        if Swift.type(of: value) is NSArray.Type, let array = value as? NSArray { return "an array of \(array.count) values" }
        if let dictionary = value as? [String: Any] { return "a dictionary of \(dictionary.count) entries" }
        if let array = value as? [Any] { return "an array of \(array.count) values" }
        if isNestedValue(value) { return "a \(Swift.type(of: value))" }
        switch value {
        case let string as String: return string.utf8.count > 64 ? "'\(string.prefix(61))...' (\(string.utf8.count) bytes)" : "'\(string)'"
        case let data as Data: return "<\(data.count) bytes>"
        case let engine as Value: return engine.debugText
        case let date as Date: return date.floeDescription
        case let object as ObjectBase: return "a \(type(of: object).className()) object"
        default:
            let text = "\(value)"
            return text.count > 64 ? "\(text.prefix(61))..." : text
        }
    }
}

/// An optional, whatever it wraps: lets `isNull` ask whether a value is nil without reflection.
protocol OptionalValue {
    var isNone: Bool { get }
}

extension Optional: OptionalValue {
    var isNone: Bool { self == nil }
}

/// Swift's collections, whatever they hold, recognised by their type (see `isNestedValue`).
protocol SwiftCollection {}

extension Array: SwiftCollection {}
extension Dictionary: SwiftCollection {}
extension Set: SwiftCollection {}
