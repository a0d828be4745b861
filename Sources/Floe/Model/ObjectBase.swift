@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// The common base of ``Object``, ``EmbeddedObject`` and ``AsymmetricObject``.
///
/// You never subclass it directly. It holds what makes a model object managed: while
/// unmanaged, its `@Persisted` properties keep their values in the object itself; once
/// added to a realm, they read and write the realm's current version.
open class ObjectBase {
    /// Set while the object is managed by a realm (live or frozen).
    // `@exclusivity(unchecked)`: read by every property access of a model object, where a
    // dynamic exclusivity check cost more than the read itself; nothing holds an access to it
    // across another. `final`: a direct load, not a call through the class's table.
    @exclusivity(unchecked) @usableFromInline final var _floeBinding: ObjectBinding?

    /// Creates an unmanaged object.
    public required init() {}

    /// The class name, which is the table name.
    ///
    /// ```swift
    /// Dog.className()   // "Dog"
    /// ```
    open class func className() -> String {
        let name = String(describing: self)
        // Generic or nested types print with qualifiers; the table name is the unqualified name.
        return name.split(separator: ".").last.map(String.init) ?? name
    }

    /// Maps Swift property names to the names they are persisted under.
    ///
    /// ```swift
    /// class Person: Object {
    ///     @Persisted var firstName = ""
    ///     override class public func propertiesMapping() -> [String: String] {
    ///         ["firstName": "first_name"]
    ///     }
    /// }
    /// ```
    open class func propertiesMapping() -> [String: String] { [:] }

    /// Whether this object belongs to a realm.
    public var isManaged: Bool { _floeBinding != nil }
}

extension ObjectBase {
    /// Whether `object` may be re-pointed at another row of its table: iteration, link reads
    /// and primary-key lookups re-point the one object they handed out last instead of
    /// building an object per row, but only when nothing can tell. Each part is needed:
    ///
    /// - the object is referenced only through `object` (strongly unique): the caller let go
    ///   of what it was handed, so no one else sees it change rows;
    /// - its binding is referenced only by the object: a `List`, `MutableSet`, `Map` or
    ///   `LinkingObjects` kept from the object holds the binding, not the object, and must
    ///   stay with its own row;
    /// - no weak or unowned reference to it exists (`_getWeakRetainCount` and
    ///   `_getUnownedRetainCount` count one for the object itself): such a reference would
    ///   otherwise see another row.
    ///
    /// An unmanaged object (no binding) is never re-pointed.
    ///
    /// ```swift
    /// if previous != nil, ObjectBase.mayBeRepointed(&previous!) { /* move it to the next row */ }
    /// ```
    @usableFromInline @inline(__always)
    static func mayBeRepointed<T: ObjectBase>(_ object: inout T) -> Bool {
        isKnownUniquelyReferenced(&object) && isKnownUniquelyReferenced(&object._floeBinding)
            && _getWeakRetainCount(object) <= 1 && _getUnownedRetainCount(object) <= 1
    }

    /// The reference counts of `object` as one word: the word after its type pointer, where
    /// the Swift runtime keeps an object's strong and unowned counts inline, until the first
    /// weak reference to it (or a count too large for the word) moves them to a side table; the
    /// word then holds the side table's address with its top bit set, and never goes back.
    /// Two equal words with the top bit clear therefore mean equal inline counts and no weak
    /// reference: an object whose word equals the word of an object ``mayBeRepointed(_:)``
    /// approved (taken right then) may be re-pointed as well, with one load and one compare
    /// instead of four runtime calls. A word with the top bit set says nothing (a side table's
    /// counts change without changing it) and is never approved (``countsApproved(_:)``).
    ///
    /// On a platform whose objects do not have that word (not 64-bit) it reads as 0, which is
    /// never approved either: every step asks ``mayBeRepointed(_:)``.
    ///
    /// ```swift
    /// let approved = ObjectBase.referenceCounts(of: .passUnretained(object))   // right after mayBeRepointed
    /// ```
    @usableFromInline @inline(__always)
    static func referenceCounts<T: AnyObject>(of object: Unmanaged<T>) -> UInt64 {
        #if _pointerBitWidth(_64)
        UnsafeRawPointer(object.toOpaque()).load(fromByteOffset: MemoryLayout<UInt>.size, as: UInt64.self)
        #else
        0
        #endif
    }

    /// Whether counts taken by ``referenceCounts(of:)`` can stand for an approval: inline counts
    /// (the top bit, which marks a side table or an immortal object, clear), and not 0 (the
    /// value where the word is not read, and no live object's word).
    @usableFromInline @inline(__always)
    static func countsApproved(_ counts: UInt64) -> Bool { counts != 0 && counts & (1 << 63) == 0 }
}

/// A top-level model class, stored in its own table named after the class.
///
/// ```swift
/// class Dog: Object {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var name = ""
///     @Persisted var breed: String?
///     @Persisted var dateOfBirth = Date()
/// }
/// ```
open class Object: ObjectBase {}

/// A model class owned by exactly one parent object, deleted with it.
///
/// ```swift
/// class Address: EmbeddedObject {
///     @Persisted var street: String?
///     @Persisted var city: String?
/// }
/// ```
open class EmbeddedObject: ObjectBase {}

/// A write-only model class: objects are created with `create(_:value:)`, which returns
/// nothing (as in Realm), and go to an outbox; they cannot be queried, added, updated or deleted.
///
/// ```swift
/// class WeatherSensor: AsymmetricObject {
///     @Persisted(primaryKey: true) var _id: ObjectId
///     @Persisted var deviceId: String
/// }
///
/// try await realm.write { realm in
///     try realm.create(WeatherSensor.self, value: ["_id": ObjectId.generate(), "deviceId": "WX1278UIT"])
/// }
/// ```
open class AsymmetricObject: ObjectBase {}
