// The kind of failure each FloeError case is about, for callers that handle a kind rather than
// each case; the cases and their messages stay as they are.

extension FloeError {
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
}
