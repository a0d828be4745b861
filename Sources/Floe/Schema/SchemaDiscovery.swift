@_spi(Reflection) import Swift
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Finds a model class's `@Persisted` properties, once per class.
///
/// `Mirror` names the fields and hands out each `@Persisted` wrapper (which knows its value
/// type and options); the runtime's field list gives each field's offset inside an
/// instance, so a managed object's fields can be bound without going through key paths.
enum SchemaDiscovery {
    private static let cache = Locked<[ObjectIdentifier: Result<ObjectSchemaInfo, FloeError>]>([:])

    private static let typesByName = Locked<[String: ObjectBase.Type]>([:])
    /// Every class of each name this process has used (a program may have several classes of
    /// one name, each used with its own realm).
    private static let allTypesByName = Locked<[String: [ObjectBase.Type]]>([:])

    /// The model class stored under `className`, if this process has used it (the last used).
    static func type(named className: String) -> ObjectBase.Type? {
        typesByName.withLock { $0[className] }
    }

    /// Every model class of that name this process has used.
    static func types(named className: String) -> [ObjectBase.Type] {
        allTypesByName.withLock { $0[className] ?? [] }
    }

    /// The schema of `type`, or the typed error that says what is wrong with the class.
    static func schema(for type: ObjectBase.Type) throws(FloeError) -> ObjectSchemaInfo {
        let id = ObjectIdentifier(type)
        if let cached = cache.withLock({ $0[id] }) { return try cached.get() }
        let result = Result { () throws(FloeError) -> ObjectSchemaInfo in try discover(type) }
        cache.withLock { $0[id] = result }
        if case .success(let schema) = result {
            typesByName.withLock { $0[schema.className] = type }
            allTypesByName.withLock { $0[schema.className, default: []].append(type) }
        }
        return try result.get()
    }

    private static func discover(_ type: ObjectBase.Type) throws(FloeError) -> ObjectSchemaInfo {
        guard isClass(type) else {
            // Only a generic constraint the compiler failed to enforce gets a value type here;
            // reading it as a class would crash the process.
            throw .invalidSchema(className: "\(type as Any.Type)", property: "(none)",
                                 reason: "\(type as Any.Type) is not a model class: subclass Object, EmbeddedObject or AsymmetricObject")
        }
        let className = type.className()
        let kind: TableKind
        if type is EmbeddedObject.Type { kind = .embedded } else if type is AsymmetricObject.Type { kind = .asymmetric } else { kind = .topLevel }
        if className.utf8.count > TableSpec.maximumNameLength {
            throw .invalidName(kind: "class", name: className, reason: "\(className.utf8.count) UTF-8 bytes is more than the limit of \(TableSpec.maximumNameLength)")
        }

        var offsets: [String: Int] = [:]
        _ = _forEachField(of: type, options: _EachFieldOptions(rawValue: 1) /* classType: include superclass fields */) { name, offset, _, _ in
            offsets[String(cString: name)] = offset
            return true
        }

        let prototype = type.init()
        var mirrors: [Mirror] = []
        var mirror: Mirror? = Mirror(reflecting: prototype)
        while let current = mirror {
            mirrors.insert(current, at: 0)
            mirror = current.superclassMirror
        }
        let mapping = type.propertiesMapping()
        var properties: [PropertyInfo] = []
        for mirror in mirrors {
            for child in mirror.children {
                guard let label = child.label, label.hasPrefix("_"), let field = child.value as? any PersistedField else { continue }
                let name = String(label.dropFirst())
                guard let offset = offsets[label] else {
                    throw .invalidSchema(className: className, property: name, reason: "its storage could not be located")
                }
                let fieldType = Swift.type(of: field)
                var property = PropertyInfo(name: name, persistedName: mapping[name] ?? name, type: fieldType.valueType,
                                            isPrimaryKey: field.options.isPrimaryKey, isIndexed: field.options.isIndexed,
                                            accessor: fieldType.makeAccessor(offset: offset), originProperty: field.options.originProperty)
                property.deleteRule = field.options.deleteRule
                try SchemaValidation.validate(property, in: className, kind: kind)
                if field.lacksStartingValue {
                    // A required failable type projection whose mapping refuses its persisted
                    // type's default: no value to start from, nor to read in place of an
                    // invalid stored one.
                    throw .invalidSchema(className: className, property: name,
                                         reason: "a required \(property.type.swiftName) declared without an initial value has none to start from (the persisted type's default maps to no \(property.type.swiftName)): give it an initial value or make it optional")
                }
                properties.append(property)
            }
        }
        try SchemaValidation.validate(properties, in: className, kind: kind)
        return ObjectSchemaInfo(type: type, className: className, kind: kind, properties: properties)
    }

    /// Whether `type` is really a class (see ``discover(_:)``); not folded away by the compiler,
    /// which takes the static type on trust.
    @inline(never) @_optimize(none)
    private static func isClass(_ type: Any.Type) -> Bool {
        type is ObjectBase.Type
    }
}
