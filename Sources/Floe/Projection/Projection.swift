@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// Class projections: a view of a model object that shows some of its properties under names
// of its own. A projection stores nothing: every read and write goes to the root object.

/// What every class projection is: a view of one root object.
///
/// You use it through ``Projection``; generic code over projections names it.
///
/// ```swift
/// func names<P: ProjectionObservable>(_ projections: ProjectionResults<P>) -> [String] where P.Root == Person {
///     projections.map { $0.rootObject.firstName }
/// }
/// ```
public protocol ProjectionObservable: AnyObject, SendableMetatype {
    /// The model class the projection shows.
    associatedtype Root: ObjectBase
    /// The object shown.
    var rootObject: Root { get }
    /// A projection of `object`.
    init(projecting object: Root)
}

/// A class projection: a subclass declares the properties it shows with ``Projected``, and
/// everything else of the root object stays hidden (not readable, not observed).
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName
///     @Projected(\Person.address?.city) var homeCity
///     @Projected(\Person.friends.projectTo.firstName) var firstFriendsName: ProjectedCollection<String>
/// }
/// let people = realm.objects(PersonProjection.self)
/// print(people.first?.homeCity ?? "")
/// ```
///
/// A projection is live while its root is (it belongs to the realm's isolation, like the root);
/// `freeze()` gives a `Sendable` snapshot.
open class Projection<Root: ObjectBase>: ProjectionObservable {
    /// The object shown: reads and writes of projected properties go to it.
    ///
    /// ```swift
    /// let person: Person = projection.rootObject
    /// ```
    // Inlinable and final, as the stored properties here: projected reads load the field
    // directly instead of calling a getter.
    @inlinable public final var rootObject: Root { storedRoot }
    /// ``rootObject``'s storage: a `var` only so that iteration can ask whether the projection
    /// holds the sole reference (`isKnownUniquelyReferenced`); nothing assigns it after init,
    /// so reads need no exclusivity check.
    @exclusivity(unchecked) @usableFromInline final var storedRoot: Root
    /// Set while the builder names a projected property: reads report their field here.
    final var fieldReadRecorder: ((any ProjectedField) -> Void)? {
        didSet { isRecordingFieldReads = fieldReadRecorder != nil }
    }
    /// Whether reads report their field (``fieldReadRecorder``): a stored flag, which a
    /// projected read tests with one load.
    @exclusivity(unchecked) @usableFromInline final private(set) var isRecordingFieldReads = false

    /// A projection of `object` (managed or not).
    ///
    /// ```swift
    /// let projection = PersonProjection(projecting: person)
    /// ```
    ///
    /// This initializer does not throw (as Realm's does not), so a projected key path that reads
    /// no persisted property of the root (a plain `var`, or a list mapped with `projectTo` to
    /// one) is reported where the object's realm reports a value it cannot read: over a live
    /// realm's object, the `read { }` or `write { }` the projection is made in throws
    /// ``FloeError/invalidKeyPath(className:keyPath:reason:)`` (naming the projection class,
    /// its property and the root class) when its closure returns, and a write rolls back; over
    /// a frozen object, the frozen realm's `checkIntegrity()` throws it. This was chosen over a
    /// trap: the mistake is in the model code, and a typed error names it without ending the
    /// program. The projection class is checked once; later projections of it cost no check.
    /// Over an unmanaged object there is no realm to report to: its properties are read as
    /// Swift reads them, and `freeze()`, `changes` and queries of the class throw the error.
    public required init(projecting object: Root) {
        storedRoot = object
        if let binding = object._floeBinding {
            // The class this projection is (a subclass of `Projection<Root>`), not the one the
            // initializer is written in.
            let projectionType: any ProjectionObservable.Type = type(of: self)
            ProjectionSchema.check(projectionType, recordingOn: binding.source)
        }
    }

    /// Whether the root object is managed by a realm.
    ///
    /// ```swift
    /// if projection.isManaged { print("stored") }
    /// ```
    public var isManaged: Bool { rootObject._floeBinding != nil }
}

/// Declares a property of a ``Projection`` that shows one value reached from the root object:
/// a property (passthrough or renamed), a property through embedded objects and to-one links,
/// or the same property of each object of a list or set (`projectTo`).
///
/// ```swift
/// class PersonProjection: Projection<Person> {
///     @Projected(\Person.firstName) var firstName          // passthrough
///     @Projected(\Person.lastName) var surname             // renamed
///     @Projected(\Person.address?.city) var homeCity       // through an embedded object
///     @Projected(\Person.friends.projectTo.firstName) var friendsFirstNames: ProjectedCollection<String>
/// }
/// ```
///
/// Inside a write, assigning a projected property assigns the root's (key paths through an
/// optional link write nothing while the link is nil).
@propertyWrapper
public struct Projected<Root: ObjectBase, Value>: ProjectedField {
    let keyPath: KeyPath<Root, Value>
    /// The key path compiled to the root's columns, found on the first read of a managed root.
    @usableFromInline var compiled: ProjectedRead<Value>?
    /// The root's column the compiled read reads when it needs no links, or -1: the getter then
    /// reads it with no copy of the field and no lookup. Found from the root's binding on the
    /// first read of a managed root; a projection's root, and that root's binding (and so its
    /// columns), never change after that, as a `@Persisted` field's column does not.
    @usableFromInline var directColumn: Int = -1
    /// The root's binding, kept with ``directColumn`` (set whenever it is `>= 0`), so that the
    /// getter loads it from the projection as the `@Persisted` getter loads its object's, and
    /// not through the root. Unretained: the root, which the projection holds for its whole
    /// life, holds it, and a managed object's binding is never replaced (re-pointing a walk's
    /// root moves the same binding to another row).
    @usableFromInline var directBinding: Unmanaged<ObjectBinding>?

    /// A projected property that reads `projectedKeyPath` on the root object.
    ///
    /// ```swift
    /// @Projected(\Person.firstName) var name
    /// ```
    public init(_ projectedKeyPath: KeyPath<Root, Value>) {
        keyPath = projectedKeyPath
    }

    @available(*, unavailable, message: "@Projected can only be used on properties of Projection subclasses")
    public var wrappedValue: Value {
        get { fatalError("@Projected outside a projection") }
        set { fatalError("@Projected outside a projection") }
    }

    /// Reads and writes through the enclosing projection's root object.
    // Inlinable (like `@Persisted`'s) so that, in each projection's accessors, the storage
    // key path becomes a field access and nothing generic is resolved per read. Every use of
    // the storage key path in the getter is such a field access (none is passed on to a
    // function): the key path object is then never made, which cost a runtime call per read.
    // Always inlined: left to the optimizer, the getter was not inlined, and each read then
    // applied the key path through the runtime.
    @inlinable @inline(__always)
    public static subscript<EnclosingSelf: Projection<Root>>(
        _enclosingInstance projection: EnclosingSelf,
        wrapped wrappedKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Value>,
        storage storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Projected<Root, Value>>
    ) -> Value {
        get {
            // A managed root whose property is its own, of a plain type: the typed read the
            // `@Persisted` getter makes (`Value` is known here, so the type tests fold away).
            // The binding is reached unretained: the root, which the projection holds, holds it
            // for the read (a strong copy would cost a retain and a release per read). No check
            // of `isRecordingFieldReads` here: only probes over unmanaged roots record reads.
            // The column and the binding are both loaded from the projection's field: no load of
            // the root on the way (the field keeps the binding unretained, see `directBinding`).
            let column = projection[keyPath: storageKeyPath].directColumn
            if column >= 0,
               let value = projection[keyPath: storageKeyPath].directBinding.unsafelyUnwrapped._withUnsafeGuaranteedRef({ binding in
                   readPlain(binding, column: column)
               }) {
                return value
            }
            // Anything else out of line (the column to keep found there too), so that this
            // getter is small enough to be inlined into the caller's loop, where a walk's typed
            // read then releases nothing on its common path (see `ObjectBinding.readInt(column:)`).
            // The field is written here, in instantaneous accesses: one held across a call would
            // cost every read of the field a dynamic exclusivity check.
            // The value comes back as the function's own result (a register for a one-word
            // type), the compiled read and column through locals that only this path touches:
            // returned together as a tuple, the value came back through memory, and the common
            // path then stored its value there too so that both paths met in one place.
            var compiled: ProjectedRead<Value>?
            var directColumn = -1
            var directBinding: Unmanaged<ObjectBinding>?
            let value = readOutOfLine(projection[keyPath: storageKeyPath], of: projection, compiled: &compiled,
                                      directColumn: &directColumn, directBinding: &directBinding)
            if let compiled {
                projection[keyPath: storageKeyPath].compiled = compiled
                projection[keyPath: storageKeyPath].directBinding = directBinding
                projection[keyPath: storageKeyPath].directColumn = directColumn
            }
            return value
        }
        set {
            write(newValue, projection, storageKeyPath)
        }
    }

    /// A read that is not of the root's own plain property: through the compiled read (links
    /// followed), or the first read, which compiles the key path and sets `compiled` to the
    /// compiled read, `directColumn` to the root's column it reads directly (-1: none) and
    /// `directBinding` to the root's binding (with a column only), for the getter to keep in
    /// the field. None is set when there is nothing to keep.
    // Inlinable, so that it is specialized for the caller's types, but never inlined: the
    // getter keeps only the common read.
    @inlinable @inline(never)
    static func readOutOfLine(_ field: Projected, of projection: Projection<Root>,
                              compiled kept: inout ProjectedRead<Value>?, directColumn: inout Int,
                              directBinding: inout Unmanaged<ObjectBinding>?) -> Value {
        // A managed root, once compiled: the root's column, read as its `@Persisted` getter reads it.
        if let compiled = field.compiled, !projection.isRecordingFieldReads,
           let binding = projection.rootObject._floeBinding, let value = compiled.read(from: binding) {
            return value
        }
        let (value, compiled) = read(field, of: projection)
        kept = compiled
        if let compiled, compiled.directProperty >= 0, let binding = projection.rootObject._floeBinding {
            directColumn = binding.column(ofProperty: compiled.directProperty)
            directBinding = Unmanaged.passUnretained(binding)
        }
        return value
    }

    /// `column` read by its plain type's typed read, as `ObjectBinding.read(column:as:)` does;
    /// nil when `Value` is not a plain type.
    @inlinable @inline(__always)
    static func readPlain(_ binding: ObjectBinding, column: Int) -> Value? {
        binding.readPlain(column: column, as: Value.self)
    }

    /// A read that is not the compiled fast path: the first one (which compiles the key path,
    /// answered second for the caller to keep in the field), one while the builder names the
    /// property, an unmanaged root, a nil link on the way, or a key path that stays one.
    @usableFromInline
    static func read(_ field: Projected, of projection: Projection<Root>) -> (value: Value, compiled: ProjectedRead<Value>?) {
        if let recorder = projection.fieldReadRecorder { recorder(field) }
        let root = projection.rootObject
        if let binding = root._floeBinding, field.compiled == nil {
            let compiled = ProjectedReads.read(of: field.keyPath)
            return (compiled.read(from: binding) ?? root[keyPath: field.keyPath], compiled)
        }
        return (root[keyPath: field.keyPath], nil)
    }

    /// Assigns the root's property the key path reads.
    @usableFromInline
    static func write<EnclosingSelf: Projection<Root>>(
        _ newValue: Value, _ projection: EnclosingSelf, _ storageKeyPath: ReferenceWritableKeyPath<EnclosingSelf, Projected<Root, Value>>
    ) {
        let field = projection[keyPath: storageKeyPath]
        if let writable = field.keyPath as? ReferenceWritableKeyPath<Root, Value> {
            projection.rootObject[keyPath: writable] = newValue
            return
        }
        // Swift makes no writable key path through an optional link (`\Person.address?.city`):
        // the write follows the property names the key path reads instead.
        ProjectedWrite.assign(newValue, through: field.keyPath, of: projection.rootObject, in: "\(EnclosingSelf.self)")
    }

    var rootKeyPath: AnyKeyPath { keyPath }

    func resolvePath() -> Result<PropertyPath, FloeError> {
        KeyPathProbe.path(of: keyPath, for: .projection)
    }
}

/// A `@Projected` field seen without its types, for the projection's schema.
protocol ProjectedField {
    /// The key path on the root object.
    var rootKeyPath: AnyKeyPath { get }
    /// The root's properties the key path reads, by name.
    func resolvePath() -> Result<PropertyPath, FloeError>
}

extension Projection where Root: Object {
    /// Re-points the root at the next object of `roots` when nothing can see the change: the
    /// caller holds the only strong reference to this projection, and this checks that nothing
    /// holds it weakly or unowned, nor its root object (strongly, weakly or unowned) but this
    /// projection, nor the root's binding but the root (a list, set or map kept from the root
    /// holds the binding and must stay with its own row). True when re-pointed, false after
    /// the last object (nothing re-pointed), nil when something else holds one of them.
    // Inlinable and written on the projection itself, which the caller keeps alive for the
    // call, so that its root and the root's binding are tested and handed on without a retain.
    @inlinable
    final func repointRoot(_ roots: inout Results<Root>.Iterator) -> Bool? {
        guard _getWeakRetainCount(self) <= 1, _getUnownedRetainCount(self) <= 1,
              isKnownUniquelyReferenced(&storedRoot) else { return nil }
        return Unmanaged.passUnretained(storedRoot)._withUnsafeGuaranteedRef { root -> Bool? in
            guard isKnownUniquelyReferenced(&root._floeBinding), _getWeakRetainCount(root) <= 1,
                  _getUnownedRetainCount(root) <= 1 else { return nil }
            return roots.advance(repointing: root)
        }
    }

    /// The reference-count words (``ObjectBase/referenceCounts(of:)``) of this projection, of
    /// its root and of the root's binding (0 for an unmanaged root): while all three read as
    /// they did when ``repointRoot(_:)`` last approved, nothing has taken a reference to any of
    /// them since, and the next step may re-point the root without asking again.
    @inlinable @inline(__always)
    final func referenceCounts() -> (projection: UInt64, root: UInt64, binding: UInt64) {
        Unmanaged.passUnretained(storedRoot)._withUnsafeGuaranteedRef { root in
            let binding = root._floeBinding == nil ? 0 : ObjectBase.referenceCounts(of: Unmanaged.passUnretained(root._floeBinding.unsafelyUnwrapped))
            return (ObjectBase.referenceCounts(of: Unmanaged.passUnretained(self)), ObjectBase.referenceCounts(of: Unmanaged.passUnretained(root)), binding)
        }
    }

    /// Re-points the root at the next object of `roots` (the caller knows that nothing else
    /// holds the projection, its root or the root's binding); false after the last.
    @inlinable @inline(__always)
    final func advanceRoot(_ roots: inout Results<Root>.Iterator) -> Bool {
        Unmanaged.passUnretained(storedRoot)._withUnsafeGuaranteedRef { roots.advance(repointing: $0) }
    }
}
