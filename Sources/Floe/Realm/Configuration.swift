import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension Realm {
    /// How a realm is opened: where its data lives, which model classes it holds, how its
    /// schema is migrated, and how hard commits work to survive a crash.
    ///
    /// ```swift
    /// var configuration = Realm.Configuration()
    /// configuration.fileURL = URL(fileURLWithPath: "dogs.floe")
    /// configuration.objectTypes = [Dog.self, Person.self]
    /// configuration.schemaVersion = 2
    /// configuration.migrationBlock = { migration, oldSchemaVersion in
    ///     if oldSchemaVersion < 2 {
    ///         migration.renameProperty(onType: "Dog", from: "years", to: "age")
    ///     }
    /// }
    /// let realm = try await Realm(configuration: configuration)
    /// ```
    public struct Configuration: @unchecked Sendable {
        // @unchecked: `objectTypes` holds class metatypes, which are immutable.

        /// The file, by default `default.floe` in the current directory. Setting it clears
        /// ``inMemoryIdentifier``.
        public var fileURL: URL? {
            didSet { if fileURL != nil { _inMemoryIdentifier = nil } }
        }

        /// A realm that lives in memory only, shared by every realm of the process opened
        /// with the same identifier, and gone when the last of them closes. Setting it clears
        /// ``fileURL``.
        public var inMemoryIdentifier: String? {
            get { _inMemoryIdentifier }
            set {
                _inMemoryIdentifier = newValue
                if newValue != nil { fileURL = nil }
            }
        }
        private var _inMemoryIdentifier: String?

        /// Open without the right to write.
        public var readOnly = false

        /// The version of the code's schema; raise it when the model classes change.
        ///
        /// Raising it migrates the file when the realm opens, which needs ``objectTypes``:
        /// without them, opening a file with a lower stored version throws
        /// ``FloeError/migrationNeedsObjectTypes(path:stored:requested:classNames:)`` and
        /// leaves the file as it was.
        public var schemaVersion: UInt64 = 0

        /// Runs when the file's schema version is below ``schemaVersion``, once the stored
        /// classes have been given the shapes of the classes in ``objectTypes`` (which a
        /// migration needs; see ``schemaVersion``).
        ///
        /// ```swift
        /// let configuration = Realm.Configuration(schemaVersion: 2, migrationBlock: { migration, oldSchemaVersion in
        ///     if oldSchemaVersion < 2 { migration.renameProperty(onType: "Dog", from: "years", to: "age") }
        /// }, objectTypes: [Dog.self])
        /// ```
        public var migrationBlock: MigrationBlock?

        /// Delete the file instead of migrating when the schema changed (without ``objectTypes``,
        /// when ``schemaVersion`` is raised above the file's: the change cannot be checked).
        public var deleteRealmIfMigrationNeeded = false

        /// The model classes this realm holds. When nil, the realm holds every class it is
        /// used with (registered on first use, with the classes their properties reach) plus
        /// the classes already in the file; such a realm cannot migrate, since the classes are
        /// not known when it opens (see ``schemaVersion``).
        public var objectTypes: [ObjectBase.Type]?

        /// Asked on open with the file size and the bytes in use; `true` compacts first.
        public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?

        /// When set, a write that would leave more versions alive than this throws.
        public var maximumNumberOfActiveVersions: UInt?

        /// Whether each commit is synced to the disk before it returns.
        public var durability: Durability = .full

        /// A configuration; every parameter has the default a plain `Realm()` uses.
        public init(fileURL: URL? = nil, inMemoryIdentifier: String? = nil, readOnly: Bool = false,
                    schemaVersion: UInt64 = 0, migrationBlock: MigrationBlock? = nil,
                    deleteRealmIfMigrationNeeded: Bool = false, objectTypes: [ObjectBase.Type]? = nil,
                    shouldCompactOnLaunch: (@Sendable (Int, Int) -> Bool)? = nil,
                    maximumNumberOfActiveVersions: UInt? = nil, durability: Durability = .full) {
            self.fileURL = fileURL
            self.readOnly = readOnly
            self.schemaVersion = schemaVersion
            self.migrationBlock = migrationBlock
            self.deleteRealmIfMigrationNeeded = deleteRealmIfMigrationNeeded
            self.objectTypes = objectTypes
            self.shouldCompactOnLaunch = shouldCompactOnLaunch
            self.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions
            self.durability = durability
            if let inMemoryIdentifier { self.inMemoryIdentifier = inMemoryIdentifier }
        }

        private static let defaultStorage = Locked(Configuration())

        /// The configuration `Realm()` uses. Change it once, early.
        ///
        /// ```swift
        /// Realm.Configuration.defaultConfiguration.fileURL = URL(fileURLWithPath: "app.floe")
        /// ```
        public static var defaultConfiguration: Configuration {
            get { defaultStorage.withLock { $0 } }
            set { defaultStorage.withLock { $0 = newValue } }
        }

        /// The path of the file this configuration opens, or nil for an in-memory realm.
        var resolvedPath: String? {
            if inMemoryIdentifier != nil { return nil }
            return (fileURL ?? URL(fileURLWithPath: FileManager.default.currentDirectoryPath).appendingPathComponent("default.floe")).path
        }

        var storeOptions: StoreOptions {
            var options = StoreOptions(durability: durability == .full ? .full : .none, readOnly: readOnly)
            options.maximumNumberOfActiveVersions = maximumNumberOfActiveVersions.map { Int($0) }
            if let shouldCompactOnLaunch {
                options.shouldCompactOnOpen = { total, used in shouldCompactOnLaunch(Int(total), Int(used)) }
            }
            return options
        }
    }

    /// How hard a commit works to survive a crash of the machine.
    public enum Durability: Sendable, Hashable {
        /// Each commit is synced to the disk before the write returns.
        case full
        /// Commits are written but not synced: the file stays consistent after a crash, but the
        /// newest commits may be lost.
        case none
    }

    /// What `add` and `create` do when an object with the same primary key exists.
    public enum UpdatePolicy: Sendable, Hashable {
        /// Throw ``FloeError/duplicatePrimaryKey(table:column:value:)``.
        case error
        /// Write only the properties whose values differ.
        case modified
        /// Write every property.
        case all
    }
}

extension Realm.UpdatePolicy {
    /// The mapper's form of this policy.
    var existingObjectPolicy: ExistingObjectPolicy {
        switch self {
        case .error: .error
        case .modified: .modified
        case .all: .all
        }
    }
}
