import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// `min`, `max`, `sum` and `average` over one numeric or date property, with Realm's rules:
/// nulls are skipped; the sum of nothing is 0; the min, max and average of nothing are nil
/// (`.null`). Over a whole table it runs leaf by leaf over the column's words; over chosen
/// objects (a filter, a list) it reads each object's value.
///
/// ```swift
/// let oldest = try Aggregation.compute(.max, property: "age", of: Dog.self, binding: dogs, reader: snapshot, keys: nil)
/// ```
enum Aggregation {
    enum Operation: String {
        case min, max, sum, average
    }

    /// The aggregate of `property` over the objects `keys` names (nil: every object of the table).
    static func compute(_ operation: Operation, property name: String, of type: ObjectBase.Type,
                        binding: TableBinding?, reader: (any VersionReading)?, keys: [Int64]?) throws(FloeError) -> Value {
        let schema: ObjectSchemaInfo
        if let binding { schema = binding.schema } else { schema = try SchemaDiscovery.schema(for: type) }
        guard let index = schema.propertyIndex(named: name) else {
            throw .invalidKeyPath(className: schema.className, keyPath: name, reason: "\(schema.className) has no property '\(name)'")
        }
        let property = schema.properties[index]
        let columnType = property.type.columnType
        try check(operation, columnType, single: property.type.collection == .single && !property.isComputed,
                  className: schema.className, name: name, swiftName: property.type.swiftName)
        var accumulator = Accumulator(operation: operation, type: columnType)
        guard let binding, let reader, binding.table.index >= 0 else { return try accumulator.result(className: schema.className, property: name) }
        let column = binding.columnOfProperty[index]
        if let keys {
            for key in keys { accumulator.add(try reader.value(in: binding.table, key: key, column: column)) }
            return try accumulator.result(className: schema.className, property: name)
        }
        let spec = try reader.spec(of: binding.table).columns[column]
        try ClusterTree.forEachLeaf(in: reader.tableNode(binding.table).root) { leaf throws(FloeError) in
            let storage = try leaf.column(column, expected: spec).storage
            if storage.layout == .words {
                storage.words.withUnsafeBufferPointer { words in
                    if let nulls = storage.nulls {
                        for row in words.indices where !nulls[row] { accumulator.add(word: words[row]) }
                    } else {
                        for word in words { accumulator.add(word: word) }
                    }
                }
            } else {
                for row in 0..<storage.count { accumulator.add(storage.value(at: row)) }
            }
            return true
        }
        return try accumulator.result(className: schema.className, property: name)
    }

    /// The aggregate of stored values (a list or set of numbers or dates).
    static func compute(_ operation: Operation, values: [Value], type: ColumnType, kind: String) throws(FloeError) -> Value {
        try check(operation, type, single: true, className: kind, name: "self", swiftName: kind)
        var accumulator = Accumulator(operation: operation, type: type)
        for value in values { accumulator.add(value) }
        return try accumulator.result(className: kind, property: "self")
    }

    private static func check(_ operation: Operation, _ type: ColumnType, single: Bool, className: String, name: String, swiftName: String) throws(FloeError) {
        let numeric = [ColumnType.int, .float, .double, .decimal128].contains(type)
        let allowed = single && (numeric || (type == .timestamp && (operation == .min || operation == .max)))
        guard allowed else {
            let wanted = operation == .min || operation == .max ? "an Int, Float, Double, Decimal128 or Date property"
                                                                : "an Int, Float, Double or Decimal128 property"
            throw .invalidKeyPath(className: className, keyPath: name, reason: "\(operation.rawValue) needs \(wanted), and '\(name)' is \(swiftName)")
        }
    }

    /// `value` as the Swift type `T` asks for (an Int property's average read as a Double).
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` when `T` cannot hold it (a
    ///   NaN or too large an average read as an Int), never a made-up value.
    static func decode<T: _Persistable>(_ value: Value, as _: T.Type, className: String, property: String,
                                        operation: Operation) throws(FloeError) -> T {
        guard let converted = convert(value, to: T._floeType.columnType) else {
            throw .invalidOperation(className: className,
                                    detail: "the \(operation.rawValue) of '\(property)' is \(value.debugText), which \(T._floeType.swiftName) cannot hold")
        }
        if case .int(let int) = converted, T._floeType.integerBits < 64, int.magnitude >> (T._floeType.integerBits - 1) != 0,
           int != -(1 << (Int64(T._floeType.integerBits) - 1)) {
            throw .invalidOperation(className: className,
                                    detail: "the \(operation.rawValue) of '\(property)' is \(int), which \(T._floeType.swiftName) cannot hold")
        }
        // The largest raw value of an enum property, stored by a build whose enum had more
        // cases: refused, never answered as another case.
        if converted != .null, let accepts = T._floeType.acceptsValue, !accepts(converted) {
            throw .typeMismatch(table: className, column: property, expected: "a value \(T._floeType.swiftName) can hold",
                                value: converted.debugText.replacingOccurrences(of: "\"", with: "'"))
        }
        return T._floeDecode(_FloeValue(converted))
    }

    /// The value in `type`, nil when `type` cannot hold it.
    static func convert(_ value: Value, to type: ColumnType) -> Value? {
        switch (value, type) {
        case (.int(let int), .double): return .double(Double(int))
        case (.int(let int), .float): return .float(Float(int))
        case (.int(let int), .decimal128): return decimal(Decimal128(Int(int)))
        case (.double(let double), .int): return integer(double)
        case (.double(let double), .float): return .float(Float(double))
        case (.double(let double), .decimal128): return decimal(Decimal128(double))
        case (.float(let float), .double): return .double(Double(float))
        case (.float(let float), .int): return integer(Double(float))
        case (.float(let float), .decimal128): return decimal(Decimal128(Double(float)))
        case (.decimal128(let word), .double): return .double(Decimal128(high: word.high, low: word.low).doubleValue)
        case (.decimal128(let word), .float): return .float(Float(Decimal128(high: word.high, low: word.low).doubleValue))
        case (.decimal128(let word), .int): return DecimalParts(word).truncatedInt64.map(Value.int)
        default: return value
        }
    }

    /// A floating-point number cut toward zero, nil when no Int64 holds it (NaN, infinity,
    /// beyond ±2⁶³).
    private static func integer(_ double: Double) -> Value? {
        let whole = double.rounded(.towardZero)
        guard whole.isFinite, whole >= -0x1p63, whole < 0x1p63 else { return nil }
        return .int(Int64(whole))
    }

    static func decimal(_ value: Decimal128) -> Value {
        let words = value.storageWords
        return .decimal128(Word128(high: words.high, low: words.low))
    }

    /// Running totals for one operation over values of one column type.
    struct Accumulator {
        let operation: Operation
        let type: ColumnType
        private(set) var count = 0
        private var integer: Int64 = 0
        /// The exact sum of integers: 2⁶⁴ values of ±2⁶³ stay within an Int128.
        private var integerSum: Int128 = 0
        private var real = 0.0
        private var decimal = Decimal128(0)

        init(operation: Operation, type: ColumnType) {
            self.operation = operation
            self.type = type
        }

        /// One non-null value in its column's word form (ints, floats, doubles, dates).
        @inline(__always)
        mutating func add(word: UInt64) {
            switch type {
            case .int: add(integer: Int64(bitPattern: word))
            case .float: add(real: Double(Float(bitPattern: UInt32(truncatingIfNeeded: word))))
            default: add(real: Double(bitPattern: word))
            }
        }

        mutating func add(_ value: Value) {
            switch value {
            case .int(let int): add(integer: int)
            case .float(let float): add(real: Double(float))
            case .double(let double), .timestamp(let double): add(real: double)
            case .decimal128(let word): add(decimal: Decimal128(high: word.high, low: word.low))
            default: break   // nulls are skipped
            }
        }

        @inline(__always)
        private mutating func add(integer value: Int64) {
            switch operation {
            case .min: integer = count == 0 ? value : Swift.min(integer, value)
            case .max: integer = count == 0 ? value : Swift.max(integer, value)
            case .sum, .average: integerSum += Int128(value)
            }
            count += 1
        }

        @inline(__always)
        private mutating func add(real value: Double) {
            if value.isNaN { return }
            switch operation {
            case .min: real = count == 0 ? value : Swift.min(real, value)
            case .max: real = count == 0 ? value : Swift.max(real, value)
            case .sum, .average: real += value
            }
            count += 1
        }

        private mutating func add(decimal value: Decimal128) {
            if value.isNaN { return }
            switch operation {
            case .min: decimal = count == 0 ? value : Swift.min(decimal, value)
            case .max: decimal = count == 0 ? value : Swift.max(decimal, value)
            case .sum, .average: decimal += value
            }
            count += 1
        }

        /// The aggregate. An integer sum an Int64 cannot hold is an error naming the property,
        /// never a wrapped value; an integer mean is exact (a Double only where the quotient
        /// has a fraction).
        func result(className: String, property: String) throws(FloeError) -> Value {
            switch operation {
            case .sum:
                switch type {
                case .int:
                    guard let sum = Int64(exactly: integerSum) else {
                        throw .invalidOperation(className: className,
                                                detail: "the sum of '\(property)' is \(integerSum), beyond what an Int can hold (\(Int64.min) to \(Int64.max))")
                    }
                    return .int(sum)
                case .float: return .float(Float(real))
                case .decimal128: return Aggregation.decimal(decimal)
                default: return .double(real)
                }
            case .average:
                guard count > 0 else { return .null }
                if type == .decimal128 { return Aggregation.decimal(decimal / Decimal128(count)) }
                if type == .int {
                    let (quotient, remainder) = integerSum.quotientAndRemainder(dividingBy: Int128(count))
                    // The mean of Int64s is within Int64's range.
                    if remainder == 0 { return .int(Int64(quotient)) }
                    // A decimal keeps the whole part exact, for a mean read as an Int.
                    return Aggregation.decimal(Decimal128(Int(quotient)) + Decimal128(Int(remainder)) / Decimal128(count))
                }
                return .double(real / Double(count))
            case .min, .max:
                guard count > 0 else { return .null }
                switch type {
                case .int: return .int(integer)
                case .float: return .float(Float(real))
                case .timestamp: return .timestamp(real)
                case .decimal128: return Aggregation.decimal(decimal)
                default: return .double(real)
                }
            }
        }
    }
}
