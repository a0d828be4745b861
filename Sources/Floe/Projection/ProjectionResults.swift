@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// `realm.objects(PersonProjection.self)`: the root class's results, each object seen through
// the projection. Queries and sorts run on the root's results.

/// Every object of a projection's root class, each seen through the projection: lazy and live
/// like ``Results`` (they are the root's results underneath).
///
/// ```swift
/// let people = realm.objects(PersonProjection.self)
/// let inLisbon = try people.where { $0.homeCity == "Lisbon" }
/// for person in inLisbon { print(person.firstName) }
/// ```
public struct ProjectionResults<Element: ProjectionObservable>: RandomAccessCollection where Element.Root: Object {
    /// The root objects' results, in the same order.
    public let rootResults: Results<Element.Root>

    /// Projections of `rootResults`' objects.
    ///
    /// ```swift
    /// let people = ProjectionResults<PersonProjection>(rootResults: realm.objects(Person.self))
    /// ```
    public init(rootResults: Results<Element.Root>) {
        self.rootResults = rootResults
    }

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of objects now.
    public var endIndex: Int { rootResults.count }

    /// A projection of the object at `position`.
    public subscript(position: Int) -> Element { Element(projecting: rootResults[position]) }

    /// Always false: these results are live.
    public var isFrozen: Bool { false }

    /// Walks the root objects leaf by leaf, as iterating ``Results`` does (no search per row).
    public func makeIterator() -> Iterator {
        Iterator(roots: rootResults.makeIterator())
    }

    /// Projections of the root results' objects, in order. When the loop body lets the
    /// previous projection go (and nothing kept its root object), the next step re-points
    /// that projection's root at the next object instead of making a projection and an object.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var roots: Results<Element.Root>.Iterator
        /// The projection handed out last.
        @usableFromInline var previous: Element?
        /// Whether the projections are ``Projection`` subclasses, whose root can be re-pointed.
        @usableFromInline let canReuse = Element.self is Projection<Element.Root>.Type
        /// The reference-count words of `previous`, its root and the root's binding when the
        /// full check last approved re-pointing them (all 0: not approved).
        @usableFromInline var approvedCounts: (projection: UInt64, root: UInt64, binding: UInt64) = (0, 0, 0)

        init(roots: Results<Element.Root>.Iterator) {
            self.roots = roots
        }

        /// The next projection, or nil after the last.
        // Inlinable so that, made for the caller's projection class, a step looks up no
        // generic type's metadata at run time.
        //
        // Every path ends in the one copy of `previous` handed out (as in the objects'
        // iterator): when the loop body releases nothing, the caller's compiler drops the
        // retain and release of the projection handed out.
        @inlinable
        public mutating func next() -> Element? {
            // Held by nothing but this iterator, strongly: the projection itself checks that
            // nothing holds it weakly or unowned, nor its root or the root's binding at all.
            var stepped: Bool?
            if canReuse, previous != nil {
                // The projection is borrowed, not retained: `previous` holds it for the step.
                // Its words and its root's and binding's, as the last full check approved them:
                // nothing took a reference to any of them since (see `ObjectBase.referenceCounts(of:)`).
                let counts = Unmanaged.passUnretained(previous.unsafelyUnwrapped)._withUnsafeGuaranteedRef { held in
                    unsafeDowncast(held, to: Projection<Element.Root>.self).referenceCounts()
                }
                if counts == approvedCounts, approvedCounts.projection != 0 {
                    stepped = Unmanaged.passUnretained(previous.unsafelyUnwrapped)._withUnsafeGuaranteedRef { held in
                        unsafeDowncast(held, to: Projection<Element.Root>.self).advanceRoot(&roots)
                    }
                } else {
                    stepped = approveAndStep(counts)
                }
            }
            switch stepped {
            case true?: break
            case false?: previous = nil
            case nil: replacePrevious()
            }
            return previous
        }

        /// The full check of `previous` (not nil), whose words read `counts` before it: held by
        /// nothing but this iterator, strongly, and what ``Projection/repointRoot(_:)`` checks.
        /// When it approves, the root is re-pointed and `counts` kept for the next steps (unless
        /// a word is in side-table form: ``ObjectBase/countsApproved(_:)``). Out of line: the
        /// walk's common step stays small.
        @usableFromInline @inline(never)
        mutating func approveAndStep(_ counts: (projection: UInt64, root: UInt64, binding: UInt64)) -> Bool? {
            approvedCounts = (0, 0, 0)
            guard isKnownUniquelyReferenced(&previous) else { return nil }
            let stepped = Unmanaged.passUnretained(previous.unsafelyUnwrapped)._withUnsafeGuaranteedRef { held in
                unsafeDowncast(held, to: Projection<Element.Root>.self).repointRoot(&roots)
            }
            if stepped != nil, ObjectBase.countsApproved(counts.projection), ObjectBase.countsApproved(counts.root),
               ObjectBase.countsApproved(counts.binding) {
                approvedCounts = counts
            }
            return stepped
        }

        /// `previous` becomes a new projection of the next object, or nil after the last. Out
        /// of line: the uncommon step.
        @usableFromInline @inline(never)
        mutating func replacePrevious() {
            previous = roots.next(reusing: nil).map { Element(projecting: $0) }
        }
    }

    /// The objects that meet a condition on projected properties, written with the type-safe
    /// builder (live, in the same order).
    ///
    /// ```swift
    /// let inLisbon = try realm.objects(PersonProjection.self).where { $0.homeCity == "Lisbon" }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a projected
    ///   property whose key path reads no persisted property, or an operator its type does not take.
    public func `where`(_ isIncluded: (Query<Element>) -> Query<Bool>) throws -> ProjectionResults<Element> {
        _ = try ProjectionSchema.properties(of: Element.self)
        let start = Query<Element>(.keyPath(QueryKeyPath([]), collection: nil), className: Element.Root.className())
        switch isIncluded(start).condition {
        case .success(let (predicate, _)): return ProjectionResults(rootResults: try rootResults.filtered(by: predicate))
        case .failure(let error): throw error
        }
    }

    /// The objects that match a string predicate; the predicate names the root class's
    /// properties (`"address.city == 'Lisbon'"`), as the root's results take it.
    ///
    /// ```swift
    /// let inLisbon = try realm.objects(PersonProjection.self).filter("address.city == %@", "Lisbon")
    /// ```
    ///
    /// - Throws: ``FloeError/invalidPredicate(predicate:position:token:reason:)`` for a malformed
    ///   predicate, or a property the root class does not have (naming the position and token);
    ///   ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a projected property whose
    ///   key path reads no persisted property.
    public func filter(_ predicateFormat: String, _ args: Any...) throws -> ProjectionResults<Element> {
        _ = try ProjectionSchema.properties(of: Element.self)
        let predicate = try PredicateParser.parse(predicateFormat, arguments: args)
        return ProjectionResults(rootResults: try PredicateParser.locatingErrors(in: predicateFormat, arguments: args) { try rootResults.filtered(by: predicate) })
    }

    /// These objects ordered by one projected property (stable; nulls first ascending).
    ///
    /// ```swift
    /// let byCity = try realm.objects(PersonProjection.self).sorted(by: \.homeCity)
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` when the projected
    ///   property reads no persisted property or goes through a list.
    public func sorted<V>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) throws -> ProjectionResults<Element> {
        let property = try ProjectionSchema.property(keyPath)
        return try sorted(byKeyPath: property.path.dotted, ascending: ascending)
    }

    /// These objects ordered by a property of the root class (through to-one links).
    ///
    /// ```swift
    /// let byName = try realm.objects(PersonProjection.self).sorted(byKeyPath: "firstName")
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a property the root
    ///   class does not have or cannot sort by, or a projected property whose key path reads no
    ///   persisted property.
    public func sorted(byKeyPath keyPath: String, ascending: Bool = true) throws -> ProjectionResults<Element> {
        _ = try ProjectionSchema.properties(of: Element.self)
        return ProjectionResults(rootResults: try rootResults.sorted(byKeyPath: keyPath, ascending: ascending))
    }

    /// A frozen, `Sendable` snapshot of these projections at the realm's newest version.
    ///
    /// ```swift
    /// let frozen = try await realm.read { realm in try realm.objects(PersonProjection.self).freeze() }
    /// ```
    ///
    /// - Throws: ``FloeError/invalidKeyPath(className:keyPath:reason:)`` for a projected property
    ///   whose key path reads no persisted property; ``FloeError`` when the realm's version
    ///   cannot be read.
    public func freeze() throws -> FrozenProjectionResults<Element> {
        _ = try ProjectionSchema.properties(of: Element.self)
        return FrozenProjectionResults(rootResults: try rootResults.freeze())
    }
}

/// Frozen projection results: `Sendable`, readable from any task, never changing.
///
/// ```swift
/// let frozen = try await realm.read { realm in try realm.objects(PersonProjection.self).freeze() }
/// Task.detached { print(frozen.map(\.firstName)) }
/// ```
public struct FrozenProjectionResults<Element: ProjectionObservable>: RandomAccessCollection, Sendable where Element.Root: Object {
    /// The root objects' frozen results.
    public let rootResults: FrozenResults<Element.Root>

    /// 0.
    public var startIndex: Int { 0 }
    /// The number of objects at the frozen version.
    public var endIndex: Int { rootResults.count }

    /// The frozen projection of the object at `position`.
    public subscript(position: Int) -> FrozenProjection<Element> { FrozenProjection(rootObject: rootResults[position]) }
}

extension Query where T: ProjectionObservable {
    /// A projected property: the builder compares the root's property it reads.
    ///
    /// ```swift
    /// try realm.objects(PersonProjection.self).where { $0.homeCity == "Lisbon" && $0.firstName != "" }
    /// ```
    public subscript<V>(dynamicMember member: KeyPath<T, V>) -> Query<V> {
        do throws(FloeError) {
            guard case .keyPath(let start, let collection) = node, start.components.isEmpty, collection == nil else {
                throw .invalidKeyPath(className: className, keyPath: "\(member)", reason: "a projected property is named from the projection itself")
            }
            let path = try ProjectionSchema.property(member).path
            let components = QueryKeyPath(path.components.map { .property($0) })
            let toMany = path.toManyPrefix.map { QueryKeyPath(Array(components.components.prefix($0))) }
            return Query<V>(.keyPath(components, collection: toMany), className: className)
        } catch {
            return Query<V>(.invalid(error), className: className)
        }
    }
}

extension RealmReading where Self: ~Copyable {
    /// Every object of a projection's root class, each seen through the projection (live).
    ///
    /// ```swift
    /// let people = realm.objects(PersonProjection.self)
    /// ```
    ///
    /// A projection whose key path reads no persisted property (a plain `var` of the root) is
    /// refused here: the `read { }` or `write { }` this runs in throws
    /// ``FloeError/invalidKeyPath(className:keyPath:reason:)`` (naming the projection class,
    /// the property and its key path) when its closure returns, and a write rolls back.
    public func objects<P: ProjectionObservable>(_ type: P.Type) -> ProjectionResults<P> where P.Root: Object {
        let roots = objects(P.Root.self)
        ProjectionSchema.check(P.self, in: roots.context)
        return ProjectionResults(rootResults: roots)
    }

    /// The projection of the object of the root class whose primary key is `key`, or nil.
    ///
    /// ```swift
    /// let person = realm.object(ofType: PersonProjection.self, forPrimaryKey: id)
    /// ```
    ///
    /// A projection whose key path reads no persisted property is refused as
    /// `objects(_:)` refuses it: the enclosing `read { }` or `write { }` throws.
    public func object<P: ProjectionObservable, Key: _Persistable>(ofType type: P.Type, forPrimaryKey key: Key) -> P? where P.Root: Object {
        ProjectionSchema.check(P.self, in: objects(P.Root.self).context)
        return object(ofType: P.Root.self, forPrimaryKey: key).map { P(projecting: $0) }
    }
}
