import Foundation

/// Every error Floe throws.
///
/// Each case carries what is needed to find the culprit: the file and the byte offset
/// for storage problems, the table, column and value for data problems. The
/// `description` is a complete sentence meant to be shown to a developer as is, and
/// ``FloeError/category`` says what kind of failure it is (file, schema, migration, transaction, object,
/// value or query) for code that handles a kind rather than each case.
///
/// ```swift
/// do {
///     try await realm.asyncWrite { realm in
///         try realm.create(Dog.self, value: ["name": 42])
///     }
/// } catch let error as FloeError {
///     print(error)            // "Invalid value 42 for 'Dog.name': expected String."
///     print(error.category)   // "value"
/// }
/// ```
public enum FloeError: Error, Sendable, Equatable, CustomStringConvertible, LocalizedError {
    /// The file does not start with Floe's magic bytes.
    case notAFloeFile(path: String)
    /// The file was written by a newer (or unknown) format version.
    case unsupportedFormatVersion(path: String, found: UInt32, supported: UInt32)
    /// A checksum or structural check failed while reading the file.
    case corruptFile(path: String, offset: UInt64, detail: String)
    /// Another process holds the file's advisory lock.
    case fileLocked(path: String)
    /// A system call failed.
    case io(path: String, operation: String, errno: Int32)
    /// The store was closed and cannot be used any more.
    case closed(path: String)
    /// A mutation was attempted outside a write transaction.
    case notInWriteTransaction(path: String)
    /// A write was attempted on a store opened read-only.
    case readOnly(path: String)
    /// Beginning another version would exceed `maximumNumberOfActiveVersions`.
    case tooManyActiveVersions(path: String, active: Int, maximum: Int)
    /// A table with this name is not in the schema.
    case noSuchTable(name: String)
    /// A table with this name already exists.
    case duplicateTable(name: String)
    /// The table has no column with this name.
    case noSuchColumn(table: String, column: String)
    /// A column with this name already exists in the table.
    case duplicateColumn(table: String, column: String)
    /// No object with this key exists in the table.
    case noSuchObject(table: String, key: Int64)
    /// Another object already has this primary key value.
    case duplicatePrimaryKey(table: String, column: String, value: String)
    /// An object with this key already exists in the table.
    case duplicateObjectKey(table: String, key: Int64)
    /// A value does not fit the column's type.
    case typeMismatch(table: String, column: String, expected: String, value: String)
    /// `null` was given for a column that is not nullable.
    case nullForRequired(table: String, column: String)
    /// A string or binary value is larger than Floe stores.
    case valueTooLarge(table: String, column: String, size: Int, limit: Int)
    /// An index into a list or row position is out of range.
    case indexOutOfRange(table: String, column: String, index: Int, count: Int)
    /// A table or column name is empty, too long or otherwise invalid.
    case invalidName(kind: String, name: String, reason: String)
    /// A link points at an object that does not exist.
    case invalidLink(table: String, column: String, target: String, key: Int64)
    /// `beginWrite()` was called while a write transaction is already open.
    case alreadyInWriteTransaction(path: String)
    /// A managed object's primary key was changed.
    case primaryKeyChanged(className: String, property: String, from: String, to: String)
    /// The model classes differ from the schema stored in the file, and no migration was provided.
    case schemaMismatch(path: String, differences: [String])
    /// The configuration's schema version is lower than the file's.
    case schemaVersionTooLow(path: String, stored: UInt64, requested: UInt64)
    /// The configuration raises the file's schema version but names no `objectTypes`, so the
    /// model classes a migration reshapes the stored ones into are not known when the realm
    /// opens. Nothing was written: the file keeps its version and data, and opening it with
    /// `objectTypes` (and the same `schemaVersion` and `migrationBlock`) migrates it.
    /// `classNames` are the classes the file holds.
    case migrationNeedsObjectTypes(path: String, stored: UInt64, requested: UInt64, classNames: [String])
    /// The object does not belong to this realm (or is not managed at all).
    case objectNotInRealm(className: String, detail: String)
    /// The operation is not allowed on objects of this kind.
    case invalidOperation(className: String, detail: String)
    /// A model class breaks a schema rule.
    case invalidSchema(className: String, property: String, reason: String)
    /// A map key is not allowed: it contains `.`, starts with `$`, or is longer than a string
    /// value may be. The message says which. (The empty key is allowed, as in Realm.)
    case invalidMapKey(table: String, column: String, key: String)
    /// A string does not spell a value of the type it was parsed as (an `ObjectId` or a `Decimal128`).
    case invalidValueString(type: String, string: String, reason: String)
    /// `create(_:value:)` was given no value for the primary key, so its default was used,
    /// and an object with that primary key exists already.
    case primaryKeyNotGiven(className: String, property: String, defaultValue: String)
    /// The value given to `create(_:value:)` or `init(value:)` links back to itself (or nests
    /// objects deeper than 100 levels).
    case cyclicValue(className: String)
    /// A query predicate is malformed or its arguments do not fit it: names the predicate,
    /// the position (in characters from its start) and the token where it went wrong.
    case invalidPredicate(predicate: String, position: Int, token: String, reason: String)
    /// A key path in a query or sort does not name a usable property of the class.
    case invalidKeyPath(className: String, keyPath: String, reason: String)
    /// The file no longer holds this version (compaction kept only later ones), or it is newer
    /// than the newest commit: names the versions it does hold.
    case versionUnavailable(path: String, version: UInt64, oldest: UInt64, newest: UInt64)
    /// A geospatial shape cannot be used (a `GeoPolygon` whose ring is too short, not closed or
    /// crosses itself, or whose hole is outside its outer ring): names the shape and what is
    /// wrong, and the class and property of the query it was given to (nil outside a query).
    case invalidShape(shape: String, className: String?, property: String?, reason: String)

    /// The message: what was refused or found, naming the file, class, property and value
    /// as they apply.
    public var description: String {
        switch self {
        case .notAFloeFile(let path):
            return "The file \(path) is not a Floe file (its header has no Floe magic)."
        case .unsupportedFormatVersion(let path, let found, let supported):
            return "The file \(path) has format version \(found); this build of Floe reads format version \(supported) only."
        case .corruptFile(let path, let offset, let detail):
            return "The file \(path) is corrupt at byte offset \(offset): \(detail)."
        case .fileLocked(let path):
            return "The file \(path) is locked by another process."
        case .io(let path, let operation, let errno):
            return "\(operation) failed on \(path): \(String(cString: strerror(errno))) (errno \(errno))."
        case .closed(let path):
            return "The store for \(path) is closed."
        case .notInWriteTransaction(let path):
            return "Cannot modify \(path) outside a write transaction."
        case .readOnly(let path):
            return "The file \(path) was opened read-only and cannot be written."
        case .tooManyActiveVersions(let path, let active, let maximum):
            return "Cannot begin a new version of \(path): \(active) versions are active and maximumNumberOfActiveVersions is \(maximum). Release frozen snapshots that are no longer needed."
        case .noSuchTable(let name):
            return "There is no class named '\(name)' in this realm."
        case .duplicateTable(let name):
            return "A class named '\(name)' is already in this realm."
        case .noSuchColumn(let table, let column):
            return "'\(table)' has no property '\(column)'."
        case .duplicateColumn(let table, let column):
            return "'\(table)' already has a property '\(column)'."
        case .noSuchObject(let table, let key):
            return "There is no \(table) object with key \(key) (it was deleted, or never committed)."
        case .duplicatePrimaryKey(let table, let column, let value):
            return "Attempting to create an object of type '\(table)' with an existing primary key value \(value) for '\(column)'."
        case .duplicateObjectKey(let table, let key):
            return "A \(table) object with key \(key) exists already."
        case .typeMismatch(let table, let column, let expected, let value):
            return "Invalid value \(value) for '\(table).\(column)': expected \(expected)."
        case .nullForRequired(let table, let column):
            return "Invalid null value for '\(table).\(column)': the property is required (not optional)."
        case .valueTooLarge(let table, let column, let size, let limit):
            return "Value of \(size) bytes for '\(table).\(column)' exceeds the limit of \(limit) bytes."
        case .indexOutOfRange(let table, let column, let index, let count):
            return "Index \(index) is out of range for '\(table).\(column)' holding \(count) elements."
        case .invalidName(let kind, let name, let reason):
            return "Invalid \(kind) name '\(name)': \(reason)."
        case .invalidLink(let table, let column, let target, let key):
            return "Invalid link in '\(table).\(column)': there is no \(target) object with key \(key)."
        case .alreadyInWriteTransaction(let path):
            return "The realm at \(path) is already in a write transaction."
        case .primaryKeyChanged(let className, let property, let from, let to):
            return "Primary key '\(className).\(property)' cannot be changed after an object is managed (from \(from) to \(to))."
        case .schemaMismatch(let path, let differences):
            return "Migration is required for \(path) because the schema has changed:\n- " + differences.joined(separator: "\n- ")
        case .schemaVersionTooLow(let path, let stored, let requested):
            return "Provided schema version \(requested) is less than last set version \(stored) for \(path)."
        case .migrationNeedsObjectTypes(let path, let stored, let requested, let classNames):
            let holds = classNames.isEmpty ? ""
                : " (the file holds \(classNames.joined(separator: ", ")): objectTypes = [\(classNames.map { "\($0).self" }.joined(separator: ", "))])"
            return "Cannot migrate \(path) from schema version \(stored) to \(requested) without Configuration.objectTypes: "
                + "a migration needs the model classes when the realm opens, and without objectTypes they are known only once used. "
                + "Set objectTypes to every model class the realm holds\(holds) and open it again with the same schemaVersion "
                + "and migrationBlock; the file was left unchanged."
        case .objectNotInRealm(let className, let detail):
            return "The \(className) object \(detail)."
        case .invalidOperation(let className, let detail):
            return "\(className): \(detail)."
        case .invalidSchema(let className, let property, let reason):
            return "Invalid model class '\(className)', property '\(property)': \(reason)."
        case .invalidMapKey(let table, let column, let key):
            return "Invalid map key \(Self.shortened(key)) for '\(table).\(column)': \(Self.mapKeyProblem(key))."
        case .invalidValueString(let type, let string, let reason):
            return "Invalid \(type) string '\(string)': \(reason)."
        case .primaryKeyNotGiven(let className, let property, let defaultValue):
            return "No value for the primary key '\(className).\(property)' was given to create(_:value:), so its default \(defaultValue) was used, and a \(className) object with primary key \(defaultValue) exists already. Give '\(property)' a value."
        case .invalidPredicate(let predicate, let position, let token, let reason):
            return "Invalid predicate '\(predicate)' at position \(position) ('\(token)'): \(reason)."
        case .invalidKeyPath(let className, let keyPath, let reason):
            return "Invalid key path '\(keyPath)' on \(className): \(reason)."
        case .versionUnavailable(let path, let version, let oldest, let newest):
            return version > newest
                ? "Version \(version) of '\(path)' has not been committed yet: the newest is \(newest)."
                : "Version \(version) of '\(path)' is no longer held (compacted away): the file holds versions \(oldest) to \(newest)."
        case .invalidShape(let shape, let className, let property, let reason):
            if let className, let property {
                return "Invalid \(shape) in a geoWithin query on '\(className).\(property)': \(reason)."
            }
            return "Invalid \(shape): \(reason)."
        case .cyclicValue(let className):
            return "Cannot create a \(className) from a cyclic value: it links back to an object being copied (or nests objects more than 100 levels deep). Add the objects with add(_:) instead, which keeps cycles."
        }
    }

    // The kind of failure each case is about, for callers that handle a kind rather than
    // each case; the cases and their messages stay as they are. (Declared in the body, as are
    // the members below: Floe re-exports this type, and documents what its body declares.)

    /// What an error is about, for code that handles a kind of failure rather than each case.
    ///
    /// Every case of ``FloeError`` belongs to exactly one category (``FloeError/category``);
    /// the messages are the cases' own. (Sync has errors of its own: FloeSync's `SyncError`.)
    ///
    /// ```swift
    /// do {
    ///     try await realm.write { realm in _ = try realm.create(Dog.self, value: ["id": 1, "name": 42]) }
    /// } catch let error as FloeError {
    ///     switch error.category {
    ///     case .value, .object: print("refused:", error)   // "Invalid value 42 for 'Dog.name': expected String."
    ///     case .file: print("the file cannot be used:", error)
    ///     default: throw error
    ///     }
    /// }
    /// ```
    public enum Category: Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The file cannot be opened, read or written: it is no Floe file, was written by a newer
        /// format, is damaged, is locked by another process, was opened read-only, its store is
        /// closed, or a system call failed.
        ///
        /// ```swift
        /// if error.category == .file { print("the file cannot be used:", error) }
        /// ```
        case file
        /// A class, property or name breaks the schema's rules, or names a class or property the
        /// realm does not have.
        ///
        /// ```swift
        /// if error.category == .schema { print("fix the model classes:", error) }
        /// ```
        case schema
        /// The stored schema differs from the model classes and the configuration does not say
        /// how to migrate (no migration, a lower schema version, no `objectTypes`).
        ///
        /// ```swift
        /// if error.category == .migration { print("raise schemaVersion and give a migrationBlock:", error) }
        /// ```
        case migration
        /// A transaction or version cannot be used as asked: a mutation outside a write, a write
        /// inside a write, too many active versions, or a version the file does not hold.
        ///
        /// ```swift
        /// if error.category == .transaction { print("release frozen snapshots, or write inside realm.write { }") }
        /// ```
        case transaction
        /// An object cannot be found, added, deleted, changed or used as asked: it was deleted or
        /// belongs to another realm, its primary key exists already or was changed, or the
        /// operation is not allowed on objects or collections of its kind (embedded, asymmetric,
        /// unmanaged, frozen).
        ///
        /// ```swift
        /// if error.category == .object { print("the object cannot be used so:", error) }
        /// ```
        case object
        /// A value given to Floe does not fit where it goes: a wrong type, null for a required
        /// property, too large, a dangling link, a refused map key, an index out of range, an
        /// unparsable `ObjectId` or `Decimal128` string, or a value that links back to itself.
        ///
        /// ```swift
        /// if error.category == .value { print("invalid input:", error) }
        /// ```
        case value
        /// A query cannot be run: a malformed predicate, a key path that names no usable
        /// property, or a geospatial shape that cannot be used.
        ///
        /// ```swift
        /// if error.category == .query { print("fix the query:", error) }
        /// ```
        case query

        /// The category's name (`"file"`, `"query"`, …).
        ///
        /// ```swift
        /// print(FloeError.Category.query)   // "query"
        /// ```
        public var description: String {
            switch self {
            case .file: "file"
            case .schema: "schema"
            case .migration: "migration"
            case .transaction: "transaction"
            case .object: "object"
            case .value: "value"
            case .query: "query"
            }
        }
    }

    /// The category this error belongs to: what it is about, to switch on where each case is
    /// more than a caller needs. ``FloeError/description`` keeps saying exactly what went wrong.
    ///
    /// ```swift
    /// do {
    ///     _ = try realm.objects(Dog.self).filter("age >")
    /// } catch let error as FloeError where error.category == .query {
    ///     print(error)   // "Invalid predicate 'age >' at position 5 (''): …"
    /// }
    /// ```
    public var category: Category {
        // No `default`: a new case does not compile until it is given a category.
        switch self {
        case .notAFloeFile, .unsupportedFormatVersion, .corruptFile, .fileLocked, .io, .closed, .readOnly:
            return .file
        case .noSuchTable, .duplicateTable, .noSuchColumn, .duplicateColumn, .invalidName, .invalidSchema:
            return .schema
        case .schemaMismatch, .schemaVersionTooLow, .migrationNeedsObjectTypes:
            return .migration
        case .notInWriteTransaction, .alreadyInWriteTransaction, .tooManyActiveVersions, .versionUnavailable:
            return .transaction
        case .noSuchObject, .duplicatePrimaryKey, .duplicateObjectKey, .primaryKeyChanged, .primaryKeyNotGiven,
             .objectNotInRealm, .invalidOperation:
            return .object
        case .typeMismatch, .nullForRequired, .valueTooLarge, .indexOutOfRange, .invalidLink, .invalidMapKey,
             .invalidValueString, .cyclicValue:
            return .value
        case .invalidPredicate, .invalidKeyPath, .invalidShape:
            return .query
        }
    }

    /// The message, the same as ``description``: Foundation's `localizedDescription` is the error's own message, so code that shows
    /// `error.localizedDescription` (as Realm users do) prints what went wrong instead of
    /// "The operation could not be completed".
    ///
    /// ```swift
    /// do {
    ///     try await realm.write { realm in try realm.create(Dog.self, value: ["name": 42]) }
    /// } catch {
    ///     print(error.localizedDescription)   // "Invalid value 42 for 'Dog.name': expected String."
    /// }
    /// ```
    public var errorDescription: String? { description }
}

extension FloeError {
    /// The most bytes a string or binary value, or a map key, may hold: 16 MiB.
    @inlinable package static var maximumValueSize: Int { 16 * 1024 * 1024 }

    /// A string quoted for a message, cut to its first characters when long.
    package static func shortened(_ string: String) -> String {
        string.utf8.count > 64 ? "'\(string.prefix(61))...' (\(string.utf8.count) bytes)" : "'\(string)'"
    }

    /// What is wrong with a refused map key, in the order the checks refuse it.
    package static func mapKeyProblem(_ key: String) -> String {
        let bytes = key.utf8
        if bytes.count > maximumValueSize { return "keys may be at most \(maximumValueSize) bytes long, as string values may" }
        if bytes.first == UInt8(ascii: "$") { return "keys may not start with '$'" }
        if bytes.contains(UInt8(ascii: ".")) { return "keys may not contain '.'" }
        return "keys may not contain '.' or start with '$'"
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
