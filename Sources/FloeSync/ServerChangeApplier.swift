import Foundation
import Floe

/// The model classes a client syncs, by class name. Metatypes never change, so sharing them
/// between tasks is safe.
struct SyncedTypes: @unchecked Sendable {
    let byName: [String: Object.Type]
    /// The primary key's property name, by class.
    let primaryKeys: [String: String]
    /// Property names by persisted name (what travels), by class: they differ where
    /// `propertiesMapping()` renames a property.
    var propertyNames: [String: [String: String]] = [:]
    /// The lists, sets and maps by persisted name, by class: an update of one carries its value
    /// before the change, so that the server merges it.
    var collections: [String: [String: SyncProperty.Collection]] = [:]

    /// `values`' bases: each list, set or map among them as `before` holds it.
    func bases(className: String, values: [String: FeedValue], before: [String: FeedValue]) -> [String: CollectionBase]? {
        guard let kinds = collections[className] else { return nil }
        var bases: [String: CollectionBase] = [:]
        for name in values.keys {
            guard let kind = kinds[name], let old = before[name] else { continue }
            switch (kind, SyncValue(old)) {
            case (.list, .list(let elements)): bases[name] = .list(elements)
            case (.set, .list(let elements)): bases[name] = .set(elements)
            case (.map, .map(let entries)): bases[name] = .map(entries)
            default: continue
            }
        }
        return bases.isEmpty ? nil : bases
    }
}

/// Applies server-ordered changes to a realm inside one write, with ``ConflictRules``'
/// semantics: an insert writes what it carries, an update of a missing object is dropped, a
/// delete of a missing object does nothing. A link to an object that a later change of the same
/// batch creates is set once that object exists (at the end of the batch).
struct ServerChangeApplier {
    let types: SyncedTypes

    /// A link value that named an object not there yet, waiting for the end of the batch.
    private struct Deferred {
        var values: [String: SyncValue] = [:]
    }

    func apply(_ changes: [ObjectChange], in realm: borrowing Realm.Transaction) throws {
        var deferred: [SyncObjectID: Deferred] = [:]
        for change in changes {
            guard let type = types.byName[change.className], let keyName = types.primaryKeys[change.className] else { continue }
            let id = change.objectID
            let existing = try Self.find(type, key: change.key, in: realm)
            switch change.operation {
            case .delete:
                deferred[id] = nil
                if let existing { try realm.delete(existing) }
            case .insert, .update:
                if change.operation == .update && existing == nil { continue }
                var dictionary: [String: Any] = [keyName: try Self.keyValue(change.key, className: change.className)]
                let names = types.propertyNames[change.className] ?? [:]
                for (persisted, value) in change.values {
                    let name = names[persisted] ?? persisted
                    if name == keyName { continue }
                    deferred[id]?.values[name] = nil
                    if let converted = try convert(value, in: realm, missing: { deferred[id, default: Deferred()].values[name] = value }) {
                        dictionary[name] = converted
                    }
                }
                try Self.upsert(type, dictionary, in: realm)
            }
        }
        for (id, waiting) in deferred where !waiting.values.isEmpty {
            guard let type = types.byName[id.className], let keyName = types.primaryKeys[id.className],
                  try Self.find(type, key: id.key, in: realm) != nil else { continue }
            var dictionary: [String: Any] = [keyName: try Self.keyValue(id.key, className: id.className)]
            for (name, value) in waiting.values {
                dictionary[name] = try convert(value, in: realm, missing: {}) ?? NSNull()
            }
            try Self.upsert(type, dictionary, in: realm)
        }
    }

    private static func find(_ type: Object.Type, key: SyncValue, in realm: borrowing Realm.Transaction) throws -> Object? {
        func open<T: Object>(_ type: T.Type) throws -> Object? {
            switch key {
            case .int(let int): return realm.object(ofType: type, forPrimaryKey: Int(int))
            case .string(let string): return realm.object(ofType: type, forPrimaryKey: string)
            case .objectId(let string): return realm.object(ofType: type, forPrimaryKey: try ObjectId(string: string))
            case .uuid(let uuid): return realm.object(ofType: type, forPrimaryKey: uuid)
            case .null: return realm.object(ofType: type, forPrimaryKey: Int?.none)
            default: throw SyncError.wrongType(className: T.className(), property: "(primary key)", expected: "an int, string, ObjectId or UUID", value: key.description)
            }
        }
        return try open(type)
    }

    private static func upsert(_ type: Object.Type, _ dictionary: [String: Any], in realm: borrowing Realm.Transaction) throws {
        func open<T: Object>(_ type: T.Type) throws {
            _ = try realm.create(type, value: dictionary, update: .modified)
        }
        try open(type)
    }

    static func keyValue(_ key: SyncValue, className: String) throws -> Any {
        switch key {
        case .int(let int): return Int(int)
        case .string(let string): return string
        case .objectId(let string): return try ObjectId(string: string)
        case .uuid(let uuid): return uuid
        case .null: return NSNull()
        default: throw SyncError.wrongType(className: className, property: "(primary key)", expected: "an int, string, ObjectId or UUID", value: key.description)
        }
    }

    /// The value `create` takes for `value`; nil when it is a link to an object not there yet
    /// (reported through `missing`).
    private func convert(_ value: SyncValue, in realm: borrowing Realm.Transaction, missing: () -> Void) throws -> Any? {
        switch value {
        case .null: return NSNull()
        case .bool(let bool): return bool
        case .int(let int): return Int(int)
        case .double(let double): return double
        case .string(let string): return string
        case .data(let data): return data
        case .date(let seconds): return Date(timeIntervalSince1970: seconds)
        case .decimal(let string): return try Decimal128(string: string)
        case .objectId(let string): return try ObjectId(string: string)
        case .uuid(let uuid): return uuid
        case .link(let className, let key):
            guard let type = types.byName[className], let target = try Self.find(type, key: key, in: realm) else {
                missing()
                return nil
            }
            return target
        case .list(let elements):
            var list: [Any] = []
            var incomplete = false
            for element in elements {
                if let converted = try convert(element, in: realm, missing: { incomplete = true }) { list.append(converted) }
            }
            if incomplete { missing() }
            return list
        case .map(let entries):
            var map: [String: Any] = [:]
            var incomplete = false
            for (key, element) in entries {
                if let converted = try convert(element, in: realm, missing: { incomplete = true }) { map[key] = converted }
            }
            if incomplete { missing() }
            return map
        }
    }
}
