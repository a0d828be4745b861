import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension Realm {
    /// Writes a compacted copy of the realm's newest committed version to a new file, which can
    /// be opened on its own (a backup, or a file to ship). The realm goes on as it is.
    ///
    /// ```swift
    /// try await realm.writeCopy(toFile: URL(fileURLWithPath: "backup.floe"))
    /// ```
    ///
    /// - Parameter fileURL: where the copy goes; nothing may exist there yet.
    /// - Parameter encryptionKey: must be nil: Floe files are not encrypted (use the platform's
    ///   file protection or an encrypted volume).
    /// - Throws: ``FloeError/io(path:operation:errno:)`` when the destination exists or cannot be
    ///   written; ``FloeError/invalidOperation(className:detail:)`` for an encryption key.
    public nonisolated func writeCopy(toFile fileURL: URL, encryptionKey: Data? = nil) throws {
        if encryptionKey != nil {
            throw FloeError.invalidOperation(className: "Realm", detail: "encrypted copies are not supported; pass encryptionKey: nil")
        }
        try store.writeCopy(to: fileURL.path)
    }
}
