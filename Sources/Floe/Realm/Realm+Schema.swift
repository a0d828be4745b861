import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension Realm {
    /// The model classes this realm holds: those of `Configuration.objectTypes` when it names
    /// them, otherwise every class the file stores that this program declares.
    ///
    /// ```swift
    /// let classNames = await realm.schema.objectSchema.map(\.className)
    /// ```
    public var schema: Schema {
        if let types = configuration.objectTypes {
            return Schema(objectSchema: types.compactMap { try? ObjectSchema(info: SchemaDiscovery.schema(for: $0)) })
        }
        let names = (try? context.currentReader().tableNames()) ?? []
        return Schema(objectSchema: names.compactMap { name in
            context.modelType(named: name).flatMap { try? ObjectSchema(info: SchemaDiscovery.schema(for: $0)) }
        })
    }

    /// Deletes the file of a realm that no realm of this process has open (and the copy a
    /// compaction may have left behind). Returns whether there was a file to delete.
    ///
    /// ```swift
    /// try Realm.deleteFiles(for: Realm.Configuration(fileURL: url))
    /// ```
    ///
    /// - Throws: ``FloeError/invalidOperation(className:detail:)`` while a realm of this process
    ///   has the file open; ``FloeError/fileLocked(path:)`` while another process does;
    ///   ``FloeError/io(path:operation:errno:)`` when the file cannot be removed.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws -> Bool {
        guard let path = configuration.resolvedPath, configuration.inMemoryIdentifier == nil else { return false }
        if Store.isOpen(path: path) {
            throw FloeError.invalidOperation(className: "Realm", detail: "the file \(path) is open in this process; let its realms go first")
        }
        let manager = FileManager.default
        guard manager.fileExists(atPath: path) else { return false }
        // Another process holding the file is refused by its lock, as opening it would be.
        let handle = try FileHandle(path: path, mode: .readWrite, create: false)
        try handle.lock(exclusive: true)
        defer { handle.unlock() }
        do {
            try manager.removeItem(atPath: path)
            if manager.fileExists(atPath: path + ".compacting") { try manager.removeItem(atPath: path + ".compacting") }
        } catch {
            throw FloeError.io(path: path, operation: "delete", errno: Int32((error as NSError).code))
        }
        return true
    }
}
