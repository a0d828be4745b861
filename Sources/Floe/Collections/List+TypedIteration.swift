import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Iterating a managed list of integers, floating-point numbers, booleans, strings or dates
// reads each leaf's typed storage in one pass: no `Value` and no `_FloeValue` per element,
// no descent of the list's tree per element.

/// An element type a managed list reads straight from its leaves' storage.
protocol ListLeafReadable: _Persistable {
    /// Appends the elements of one leaf of a list to `elements`, decoded as `_floeDecode`
    /// decodes them; answers false, having appended nothing, when the leaf does not store
    /// this type as it is (then the caller decodes the list value by value).
    static func appendElements(of storage: ColumnStorage, to elements: inout [Self]) -> Bool
}

extension ListLeafReadable {
    /// Every element of the list `column` of the object `parent` is bound to, or nil when a
    /// leaf's storage is not of this type (the caller then takes the general path).
    static func allElements(of parent: ObjectBinding, column: Int) throws(FloeError) -> [Self]? {
        let reader = try parent.source.currentReader()
        var elements: [Self] = []
        var typed = true
        try reader.forEachCollectionLeaf(in: parent.tableBinding.table, key: parent.key, column: column) { storage in
            if elements.isEmpty { elements.reserveCapacity(storage.count) }
            typed = appendElements(of: storage, to: &elements)
            return typed
        }
        return typed ? elements : nil
    }
}

extension ListLeafReadable where Self: _PersistableInteger {
    static func appendElements(of storage: ColumnStorage, to elements: inout [Self]) -> Bool {
        guard storage.layout == .words, storage.type == .int, storage.nulls == nil, storage.words.count == storage.count else { return false }
        storage.words.withUnsafeBufferPointer { words in
            for word in words { elements.append(Self(truncatingIfNeeded: Int64(bitPattern: word))) }
        }
        return true
    }
}

extension Int: ListLeafReadable {}
extension Int8: ListLeafReadable {}
extension Int16: ListLeafReadable {}
extension Int32: ListLeafReadable {}
extension Int64: ListLeafReadable {}

extension Double: ListLeafReadable {
    static func appendElements(of storage: ColumnStorage, to elements: inout [Double]) -> Bool {
        guard storage.layout == .words, storage.type == .double, storage.nulls == nil, storage.words.count == storage.count else { return false }
        storage.words.withUnsafeBufferPointer { words in
            for word in words { elements.append(Double(bitPattern: word)) }
        }
        return true
    }
}

extension Float: ListLeafReadable {
    static func appendElements(of storage: ColumnStorage, to elements: inout [Float]) -> Bool {
        guard storage.layout == .words, storage.type == .float, storage.nulls == nil, storage.words.count == storage.count else { return false }
        storage.words.withUnsafeBufferPointer { words in
            for word in words { elements.append(Float(bitPattern: UInt32(truncatingIfNeeded: word))) }
        }
        return true
    }
}

extension Bool: ListLeafReadable {
    static func appendElements(of storage: ColumnStorage, to elements: inout [Bool]) -> Bool {
        guard storage.layout == .words, storage.type == .bool, storage.nulls == nil, storage.words.count == storage.count else { return false }
        storage.words.withUnsafeBufferPointer { words in
            for word in words { elements.append(word != 0) }
        }
        return true
    }
}

extension Date: ListLeafReadable {
    static func appendElements(of storage: ColumnStorage, to elements: inout [Date]) -> Bool {
        guard storage.layout == .words, storage.type == .timestamp, storage.nulls == nil, storage.words.count == storage.count else { return false }
        storage.words.withUnsafeBufferPointer { words in
            for word in words { elements.append(Date(timeIntervalSinceReferenceDate: Double(bitPattern: word))) }
        }
        return true
    }
}

extension String: ListLeafReadable {
    static func appendElements(of storage: ColumnStorage, to elements: inout [String]) -> Bool {
        guard storage.layout == .strings, storage.type == .string, storage.nulls == nil, storage.strings.count == storage.count else { return false }
        elements.append(contentsOf: storage.strings)
        return true
    }
}

extension List {
    /// The elements of a managed list read leaf by leaf in their typed form, or nil when the
    /// element type has no typed read (or the stored leaves are not of it).
    func typedElements(_ parent: ObjectBinding) throws(FloeError) -> [Element]? {
        guard let readable = Element.self as? any ListLeafReadable.Type else { return nil }
        return try Self.typedElements(readable, parent, column)
    }

    private static func typedElements<T: ListLeafReadable>(_ type: T.Type, _ parent: ObjectBinding, _ column: Int) throws(FloeError) -> [Element]? {
        guard let elements = try T.allElements(of: parent, column: column) else { return nil }
        // `T` is `Element` (it was cast from `Element.self`): the arrays are the same type.
        return unsafeBitCast(elements, to: [Element].self)
    }
}
