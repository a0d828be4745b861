@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// Every object of one class in a realm: lazy and live.
///
/// Results read the realm's current version each time they are used, so a count or an
/// index taken earlier may be stale: use the results again rather than keeping indexes.
///
/// ```swift
/// let dogs = realm.objects(Dog.self)
/// print(dogs.count)
/// for dog in dogs where dog.age > 2 { print(dog.name) }
/// ```
public struct Results<Element: Object>: RandomAccessCollection {
    let context: ObjectContext
    /// The class whose objects these are: `Element`, or the subclass of it that was passed
    /// (`realm.objects(type)` with `let type: Object.Type = Dog.self` reads Dogs, as in Realm).
    private let elementTypeHolder: ElementTypeHolder
    var elementType: Element.Type { elementTypeHolder.type as! Element.Type }
    /// The predicate and order (nil: every object, in key order).
    let query: ResultsQuery?
    /// The matching keys of the version last evaluated: valid while the reader's root and
    /// mutation count are those recorded.
    private let cache = KeyCache()

    init(context: ObjectContext, query: ResultsQuery? = nil, elementType: Element.Type = Element.self) {
        self.context = context
        self.query = query
        elementTypeHolder = ElementTypeHolder(elementType)
    }

    /// The position of the first element: always 0.
    public var startIndex: Int { 0 }
    /// The number of elements: the position one past the last element.
    public var endIndex: Int { count }

    /// The number of objects now.
    public var count: Int {
        guard let binding = tableBinding() else { return 0 }
        if query != nil { return countWithoutKeys(binding) ?? queriedKeys(binding).count }
        return check(placeholder: 0) { () throws(FloeError) in try context.currentReader().objectCount(in: binding.table) }
    }

    /// The element at `position`, from 0 to `count - 1`.
    public subscript(position: Int) -> Element {
        if query != nil, let binding = tableBinding() {
            let keys = queriedKeys(binding)
            guard keys.indices.contains(position) else {
                if context.hasDeferredReadError { return Element() }
                preconditionFailure("Index \(position) is out of bounds for Results<\(Element.className())> of \(keys.count) objects.")
            }
            return context.materialize(Element.self, key: keys[position], binding: binding)
        }
        guard let binding = tableBinding(),
              let key = check(placeholder: nil, { () throws(FloeError) in try context.currentReader().objectKey(at: position, in: binding.table) })
        else {
            if context.hasDeferredReadError { return Element() }
            preconditionFailure("Index \(position) is out of bounds for Results<\(Element.className())> of \(count) objects.") }
        return context.materialize(Element.self, key: key, binding: binding)
    }

    /// Iterates over the objects as they were when iteration began.
    public func makeIterator() -> Iterator {
        guard let binding = tableBinding() else { return Iterator(context: context, binding: nil, rows: nil) }
        if query != nil {
            var iterator = Iterator(context: context, binding: binding, rows: nil)
            iterator.reader = check(placeholder: nil) { () throws(FloeError) in try context.currentReader() }
            let keys = queriedKeys(binding)
            iterator.keys = keys
            // Many keys: found by binary searches over the leaves, gathered once, instead of a
            // descent from the root per key (a few keys of a large table: the descents are cheaper).
            // Read-only: a write in the loop body may reshape the leaves the locator holds.
            if context.transaction == nil, let reader = iterator.reader, keys.count >= 64,
               let total = try? reader.objectCount(in: binding.table), keys.count * 8 >= total {
                iterator.locator = try? reader.rowLocator(of: binding.table)
            }
            return iterator
        }
        guard let reader = check(placeholder: nil, { () throws(FloeError) in try context.currentReader() }) else {
            return Iterator(context: context, binding: nil, rows: nil)
        }
        let rows = check(placeholder: RowCursor.empty(reader)) { () throws(FloeError) in try reader.rows(of: binding.table) }
        return Iterator(context: context, binding: binding, rows: rows)
    }

    /// Walks the objects leaf by leaf, re-pointing the previous object when nothing else holds it.
    public struct Iterator: IteratorProtocol {
        let context: ObjectContext
        let binding: TableBinding?
        /// The rows walked (none for queried results, which walk `keys`).
        var rows: RowCursor
        /// The object handed out last. When nothing else holds it any more (the loop body let
        /// it go), the next step re-points it at the next object instead of allocating one.
        @usableFromInline var previous: Element?
        /// The reference counts (``ObjectBase/referenceCounts(of:)``) of `previous` and of its
        /// binding when ``ObjectBase/mayBeRepointed(_:)`` last approved re-pointing them (0:
        /// never). While both still read the same, nothing has taken a reference to either since
        /// (the loop body let the object go), and the next step re-points it without asking again.
        @usableFromInline var approvedCounts: UInt64 = 0
        @usableFromInline var approvedBindingCounts: UInt64 = 0
        /// For queried results: the matching keys, in order, walked instead of the leaves.
        var keys: [Int64]?
        var keyIndex = 0
        /// For queried results: the version the keys were chosen in, where they are found.
        var reader: (any VersionReading)?
        /// For queried results with many keys: finds them in `reader`'s version.
        var locator: RowLocator?

        init(context: ObjectContext, binding: TableBinding?, rows: RowCursor?) {
            self.context = context
            self.binding = binding
            self.rows = rows ?? RowCursor()
        }

        /// The next object of the results, or nil after the last.
        // Inlinable, so that the check of the object handed out last is made for the caller's
        // model class (no generic metadata at run time); the step itself is not generic.
        //
        // Every path ends in the one copy of `previous` handed out: the caller's compiler then
        // sees a single load of the object it is handed, held by the iterator until the next
        // step, and when the loop body releases nothing (a typed read's common path), it drops
        // the retain of the handed-out object and its release at the end of the body.
        @inlinable
        public mutating func next() -> Element? {
            // The object and its binding both unshared, strongly or weakly (see `mayBeRepointed`).
            let reusable = previous != nil && mayRepointPrevious()
            if reusable, walksRows {
                // The walk's common step: the object is re-pointed where it is kept.
                // Unretained: `previous` holds its binding (a strong copy would retain it per step).
                if !step(repointing: Unmanaged.passUnretained(previous.unsafelyUnwrapped._floeBinding.unsafelyUnwrapped)) {
                    previous = nil
                }
            } else {
                replacePrevious(reusable: reusable)
            }
            return previous
        }

        /// The uncommon step: `previous` becomes the next object (itself re-pointed when
        /// `reusable`, otherwise a new one), or nil after the last. Out of line, so that the
        /// step inlined into the caller's loop stays small.
        @usableFromInline @inline(never)
        mutating func replacePrevious(reusable: Bool) {
            previous = next(reusing: reusable ? previous : nil)
        }

        /// Whether `previous` (not nil) may be re-pointed: its counts and its binding's are those
        /// `mayBeRepointed` approved last (one load and compare each), or it approves them now.
        @inlinable @inline(__always)
        mutating func mayRepointPrevious() -> Bool {
            // Unretained: `previous` holds the object, and the object its binding.
            // An object without a binding is unmanaged: never re-pointed (`mayBeRepointed` says no).
            guard previous.unsafelyUnwrapped._floeBinding != nil else { return false }
            // `approvedCounts` is 0 until words that can stand for an approval were taken.
            if ObjectBase.referenceCounts(of: Unmanaged.passUnretained(previous.unsafelyUnwrapped)) == approvedCounts,
               ObjectBase.referenceCounts(of: Unmanaged.passUnretained(previous.unsafelyUnwrapped._floeBinding.unsafelyUnwrapped)) == approvedBindingCounts,
               approvedCounts != 0 {
                return true
            }
            return approvePrevious()
        }

        /// `mayBeRepointed` asked for `previous` (not nil, with a binding), and the words of its
        /// approval kept for the next steps. Kept out of ``next()`` (specialized, not inlined):
        /// the walk's common step then stays small enough to be inlined into the caller's loop.
        @inlinable @inline(never)
        mutating func approvePrevious() -> Bool {
            guard ObjectBase.mayBeRepointed(&previous!) else { return false }
            let counts = ObjectBase.referenceCounts(of: Unmanaged.passUnretained(previous.unsafelyUnwrapped))
            let bindingCounts = ObjectBase.referenceCounts(of: Unmanaged.passUnretained(previous.unsafelyUnwrapped._floeBinding.unsafelyUnwrapped))
            // Words in side-table form say nothing of later references: the next step asks again.
            let approved = ObjectBase.countsApproved(counts) && ObjectBase.countsApproved(bindingCounts)
            approvedCounts = approved ? counts : 0
            approvedBindingCounts = approved ? bindingCounts : 0
            return true
        }

        /// Whether the walk steps through the leaves (not through queried keys).
        @usableFromInline var walksRows: Bool { keys == nil }

        /// Steps to the next row and re-points `objectBinding` at it; false after the last.
        @usableFromInline
        mutating func step(repointing objectBinding: Unmanaged<ObjectBinding>) -> Bool {
            guard rows.step() != nil else { return false }
            if context.transaction != nil {
                // In a write: the step may follow the row into the leaf the last write copied,
                // which costs less in the non-generic helper than in a closure here. What it
                // compares of the transaction is read here as values: nothing retains it.
                ObjectBinding.repoint(objectBinding, toRowOf: rows, writing: WriteRows(context.transaction.unsafelyUnwrapped))
            } else {
                objectBinding._withUnsafeGuaranteedRef { $0.repoint(toRowOf: rows, in: nil) }
            }
            return true
        }

        /// Re-points `object` at the next row (the caller knows that nothing else holds it or
        /// its binding); false after the last. The walk's common step, as in ``next()``.
        @usableFromInline
        mutating func advance(repointing object: Element) -> Bool {
            guard keys == nil, object._floeBinding != nil else { return next(reusing: object) != nil }
            // The objects' own step. Unretained: the caller's object holds its binding (a strong
            // copy would retain it per step). A closure here that read the open transaction
            // itself copied the cursor, retaining its arrays, on every step.
            return step(repointing: Unmanaged.passUnretained(object._floeBinding.unsafelyUnwrapped))
        }

        /// The next object: `reusable` re-pointed at it when given (the caller knows nothing
        /// else holds it), otherwise a new object. Keeps no reference to what it returns.
        @usableFromInline
        mutating func next(reusing reusable: Element?) -> Element? {
            if let keys, let binding {
                guard keyIndex < keys.count else { return nil }
                defer { keyIndex += 1 }
                return nextQueried(keys[keyIndex], binding: binding, reusing: reusable)
            }
            guard let binding, let key = rows.step() else { return nil }
            if let reusable, let objectBinding = reusable._floeBinding {
                objectBinding.repoint(toRowOf: rows, in: context.transaction)
                return reusable
            }
            let object = context.materialize(Element.self, key: key, binding: binding)
            object._floeBinding!.cachePosition(rows.position)
            return object
        }
    }

    /// Live results are never frozen.
    public var isFrozen: Bool { false }

    /// A frozen, `Sendable` snapshot of these results at the realm's last committed version
    /// (filtered and sorted results freeze with their predicate and order).
    public func freeze() throws -> FrozenResults<Element> {
        _ = try context.tableBinding(for: elementType)   // a class that no longer matches the file throws here
        return try FrozenResults(snapshot: context.latestSnapshot(), query: query, elementType: elementType)
    }

    /// The keys `query` selects at the current version (cached until the version changes).
    private func queriedKeys(_ binding: TableBinding) -> [Int64] {
        guard let query else { return [] }
        return check(placeholder: []) { () throws(FloeError) in
            let reader = try context.currentReader()
            if let keys = cache.keys(for: reader) { return keys }
            let keys = try query.keys(in: binding, reader: reader) { (type) throws(FloeError) in try context.tableBinding(for: type) }
            cache.store(keys, for: reader)
            return keys
        }
    }

    /// Nil when the class has no objects yet, or when its binding failed (a schema mismatch):
    /// then the results read as empty and the enclosing read or write throws the error.
    private func tableBinding() -> TableBinding? {
        do {
            return try context.tableBinding(for: elementType)
        } catch {
            context.deferReadError(error)
            return nil
        }
    }

    /// A read that cannot throw: damage is recorded (the enclosing read throws it) and the
    /// read answers `placeholder`.
    private func check<T>(placeholder: T, _ body: () throws(FloeError) -> T) -> T {
        do {
            return try body()
        } catch {
            return context.readFailed(error, reading: "Results<\(Element.className())>", placeholder: placeholder)
        }
    }
}

/// The keys a query selected, and the version they belong to.
final class KeyCache {
    private var keys: [Int64]?
    private var group: GroupNode?
    private var mutationCount = 0

    func keys(for reader: any VersionReading) -> [Int64]? {
        guard let keys, group === reader.group, mutationCount == reader.mutationCount else { return nil }
        return keys
    }

    func store(_ keys: [Int64], for reader: any VersionReading) {
        self.keys = keys
        group = reader.group
        mutationCount = reader.mutationCount
    }
}

extension Results: RealmCollection, _ObjcBridgeable {
    /// The type of the collection's elements (Realm's name for `Element`).
    public typealias ElementType = Element
}

/// The class a `Results` reads, held by reference: a metatype stored in `Results` itself makes
/// the compiler warn, where it must refuse, when live results leave their realm's actor.
final class ElementTypeHolder {
    let type: ObjectBase.Type

    init(_ type: ObjectBase.Type) {
        self.type = type
    }
}
