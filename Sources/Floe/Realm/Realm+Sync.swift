import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// What a sync client needs of a realm, and nothing of the engine below it: the stored schema
/// as plain values, the newest committed version, and where a pin of history is stored. (The
/// keyed change feed and the pin that keeps history in memory are on the floor above,
/// `Changes/`: `pinHistory()` and `changeFeed(since:pinnedBy:)`.) A server
/// message's changes are applied with `write(_:)`: one write,
/// nothing of it kept when its closure throws or its commit fails.
///
/// The sync client works through this realm's one store, whether the realm is a file or in
/// memory: it opens nothing itself.
@_spi(Sync) extension Realm {
    /// The newest committed version of this realm's file (or in-memory store), whoever committed it.
    public nonisolated var committedVersion: UInt64 { store.currentVersion }

    /// The classes the realm's newest version stores, by class name (top-level, embedded and
    /// asymmetric ones; the file's own, not `Configuration.objectTypes`).
    ///
    /// ```swift
    /// let todo = try realm.storedClasses()["Todo"]
    /// print(todo?.properties.first(where: \.isPrimaryKey)?.name ?? "no key")
    /// ```
    ///
    /// - Throws: ``FloeError`` when the realm is closed or its schema cannot be read.
    public nonisolated func storedClasses() throws(FloeError) -> [String: StoredClass] {
        let snapshot = try store.snapshot()
        var classes: [String: StoredClass] = [:]
        for name in try snapshot.tableNames() {
            guard let table = try snapshot.tableIfPresent(named: name) else { continue }
            let spec = try snapshot.spec(of: table)
            classes[name] = StoredClass(spec)
        }
        return classes
    }

    /// The class whose stored objects pin the file's history, and the integer property that
    /// holds each one's pinned version: compaction keeps every version from the oldest such
    /// version to the newest, so that the change feed can still be read from it. A sync client
    /// stores the version its server has acknowledged there, in the write that learns of it.
    public static var historyPin: (className: String, property: String) {
        (Store.historyPinTable, Store.historyPinColumn)
    }
}

/// One class as a realm's file stores it; see `Realm.storedClasses()`.
@_spi(Sync) public struct StoredClass: Sendable, Hashable {
    /// What kind of objects a class holds.
    public enum Kind: Sendable, Hashable {
        /// Objects of their own (`Object`).
        case topLevel
        /// Objects that live inside one owner (`EmbeddedObject`).
        case embedded
        /// Write-only objects waiting in the outbox (`AsymmetricObject`).
        case asymmetric
    }

    /// The class name.
    public var name: String
    /// Its kind.
    public var kind: Kind
    /// Its properties, by persisted name, in stored order.
    public var properties: [StoredProperty]

    /// The primary key property, if the class has one.
    public var primaryKey: StoredProperty? { properties.first(where: \.isPrimaryKey) }

    init(_ spec: TableSpec) {
        name = spec.name
        kind = switch spec.kind {
        case .topLevel: .topLevel
        case .embedded: .embedded
        case .asymmetric: .asymmetric
        }
        properties = spec.columns.map(StoredProperty.init)
    }
}

/// One stored property of a ``StoredClass``.
@_spi(Sync) public struct StoredProperty: Sendable, Hashable {
    /// The element type a property stores.
    public enum ValueType: Sendable, Hashable {
        case bool, int, float, double, string, data, date, decimal128, objectId, uuid, link, mixed
    }
    /// Whether a property holds one value or a collection of them.
    public enum Collection: Sendable, Hashable {
        case single, list, set, map
    }

    /// The persisted name.
    public var name: String
    /// The element type.
    public var type: ValueType
    /// One value, or a collection.
    public var collection: Collection
    /// Whether nil is allowed (for a collection: as an element).
    public var isOptional: Bool
    /// Whether it is the class's primary key.
    public var isPrimaryKey: Bool
    /// For links: the target class.
    public var linkTarget: String?

    init(_ column: ColumnSpec) {
        name = column.name
        type = switch column.type {
        case .bool: .bool
        case .int: .int
        case .float: .float
        case .double: .double
        case .string: .string
        case .binary: .data
        case .timestamp: .date
        case .decimal128: .decimal128
        case .objectId: .objectId
        case .uuid: .uuid
        case .link: .link
        case .mixed: .mixed
        }
        collection = switch column.collection {
        case .single: .single
        case .list: .list
        case .set: .set
        case .map: .map
        }
        isOptional = column.isNullable
        isPrimaryKey = column.isPrimaryKey
        linkTarget = column.linkTarget
    }
}
