import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// One change to an observed collection: first its state when observation began, then an
/// update per commit that changed it (or, for a slow consumer, per look, merging the commits
/// it missed).
///
/// Deletions and modifications are indices in the previous state, insertions in the new one,
/// each sorted ascending; a move is a deletion plus an insertion. Removing the deletions (from
/// the highest) and then inserting the insertions (from the lowest) turns the previous state
/// into the new one.
///
/// ```swift
/// for await change in try realm.objects(Dog.self).changes {
///     switch change {
///     case .initial(let dogs): print(dogs.count)
///     case .update(let dogs, let deletions, let insertions, let modifications):
///         print(dogs.count, deletions, insertions, modifications)
///     }
/// }
/// ```
public enum RealmCollectionChange<C: Sendable>: Sendable {
    /// The collection when observation began, as `freeze()` returns it.
    case initial(C)
    /// The collection after a change, with the positions that changed.
    case update(C, deletions: [Int], insertions: [Int], modifications: [Int])
}

/// A collection change with the identity of each object it removed, so that a consumer can act
/// on a deletion without keeping the previous state.
///
/// ```swift
/// for await detail in try realm.objects(Dog.self).changes.withDeletedKeys {
///     for key in detail.deletedKeys { print("gone:", key) }
/// }
/// ```
public struct CollectionChangeWithKeys<C: Sendable>: Sendable {
    /// The change itself.
    public let change: RealmCollectionChange<C>
    /// For each of the update's deletions, in the same order, the primary key (or, for classes
    /// without one, the object key) of the object that was there. Empty for collections of values.
    public let deletedKeys: [PrimaryKeyValue]
    /// For the first update after a write that skipped the stream: the collection the update is
    /// measured from (the state after the skipped write), which the consumer never saw.
    let measuredFrom: C?

    init(change: RealmCollectionChange<C>, deletedKeys: [PrimaryKeyValue], measuredFrom: C? = nil) {
        self.change = change
        self.deletedKeys = deletedKeys
        self.measuredFrom = measuredFrom
    }
}

/// How a change names an object: its primary key, or its object key when its class has none.
///
/// ```swift
/// if case .int(let id) = key { print("dog \(id)") }
/// ```
public enum PrimaryKeyValue: Sendable, Hashable, CustomStringConvertible {
    /// An integer primary key.
    case int(Int)
    /// A string primary key.
    case string(String)
    /// An `ObjectId` primary key.
    case objectId(ObjectId)
    /// A `UUID` primary key.
    case uuid(UUID)
    /// An optional primary key holding nil.
    case null
    /// The object's key in its table, for classes without a primary key.
    case objectKey(Int64)

    /// The key as it reads in Swift: `42`, `"rex"`, an `ObjectId`'s or `UUID`'s text, `nil`,
    /// or `#7` for the object key of an object without a primary key.
    public var description: String {
        switch self {
        case .int(let value): "\(value)"
        case .string(let value): "\"\(value)\""
        case .objectId(let value): "\(value)"
        case .uuid(let value): value.uuidString
        case .null: "nil"
        case .objectKey(let key): "#\(key)"
        }
    }

    /// The identity of object `key` of `binding`'s class in `snapshot`.
    static func of(_ key: Int64, binding: TableBinding, in snapshot: Snapshot) throws(FloeError) -> PrimaryKeyValue {
        guard let index = binding.schema.primaryKeyIndex else { return .objectKey(key) }
        return PrimaryKeyValue(try snapshot.value(in: binding.table, key: key, column: binding.columnOfProperty[index])) ?? .objectKey(key)
    }

    init?(_ value: Value) {
        switch value {
        case .int(let int): self = .int(Int(int))
        case .string(let string): self = .string(string)
        case .objectId: self = .objectId(ObjectId._floeDecode(_FloeValue(value)))
        case .uuid: self = .uuid(UUID._floeDecode(_FloeValue(value)))
        case .null: self = .null
        default: return nil
        }
    }
}
