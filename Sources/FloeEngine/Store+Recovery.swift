@_spi(Engine) import FloeStorage

/// What `Store.recover(path:to:)` salvaged.
///
/// ```swift
/// let salvage = try Store.recover(path: "app.floe", to: "app-recovered.floe")
/// print(salvage)   // "recovered version 41 of 43 (2 newer versions were damaged)"
/// ```
@_spi(Engine) public struct RecoveryOutcome: Sendable, Equatable, CustomStringConvertible {
    /// The version copied into the new file.
    public var version: UInt64
    /// The newest version any intact commit record in the damaged file names.
    public var newestVersion: UInt64
    /// Versions newer than `version` that could not be salvaged, with why.
    public var skipped: [String]

    public var description: String {
        let newer = newestVersion - version
        return "recovered version \(version) of \(newestVersion)"
            + (newer == 0 ? " (the newest)" : " (\(newer) newer version\(newer == 1 ? " was" : "s were") damaged)")
    }
}

extension Store {
    /// Salvages the newest version of a damaged file whose every reachable node verifies into a
    /// new, compacted file at `destination` (which must not exist); the damaged file is only read.
    ///
    /// Every intact commit record in the file is a candidate, newest first, even those after a
    /// damaged chunk (which opening cannot follow). A candidate is taken when its whole tree
    /// copies with every checksum right and the copy passes the tree checks of `verify()`. The
    /// object-graph checks do not count here: a version whose trees are intact is salvaged even
    /// when its graph is not (an embedded object without an owner, say), and `verify()` on the
    /// copy names those problems.
    ///
    /// ```swift
    /// let outcome = try Store.recover(path: "app.floe", to: "app-recovered.floe")
    /// ```
    ///
    /// - Throws: ``FloeError/notAFloeFile(path:)`` and the like for a file that is not Floe's at
    ///   all; ``FloeError/corruptFile(path:offset:detail:)`` when no version can be salvaged.
    public static func recover(path: String, to destination: String) throws(FloeError) -> RecoveryOutcome {
        if FileHandle.exists(destination) { throw .io(path: destination, operation: "create recovered copy", errno: EEXIST) }
        let source = try StorageFile.open(path: path, readOnly: true, durability: .none)
        defer { source.close() }
        let candidates = try CommitScanner(handle: source.handle, fileSize: try source.handle.size()).allIntactCommits()
        let newest = candidates.first?.version ?? 0
        var skipped: [String] = []
        let temporary = destination + ".recovering"
        for commit in candidates {
            FileHandle.remove(temporary)
            do throws(FloeError) {
                // Positional reads: a damaged file may sit on a disk that fails to read some blocks.
                let copy = try Compactor.copy(file: source, commit: commit, to: temporary, reportedPath: destination,
                                              durability: .full, readingPositionally: true)
                var report = VerificationReport()
                if commit.rootRef != 0 {
                    StoreVerifier.verify(root: try NodeRef<GroupNode>(offset: copy.lastCommit!.rootRef, source: copy).load(),
                                         version: commit.version, into: &report, checkingObjectGraph: false)
                }
                copy.close()
                guard report.problems.isEmpty else {
                    skipped.append("version \(commit.version): \(report.problems.first!)")
                    continue
                }
                try FileHandle.move(temporary, to: destination)
                try FileHandle.syncDirectory(of: destination)
                return RecoveryOutcome(version: commit.version, newestVersion: newest, skipped: skipped)
            } catch {
                skipped.append("version \(commit.version): \(error)")
            }
        }
        FileHandle.remove(temporary)
        if candidates.isEmpty, source.lastCommit == nil {
            // No commit at all: an empty file is all there is to recover.
            try StorageFile.open(path: destination, readOnly: false, durability: .full).close()
            return RecoveryOutcome(version: 0, newestVersion: 0, skipped: [])
        }
        throw .corruptFile(path: path, offset: 0, detail: "no version could be recovered: " + (skipped.first ?? "no intact commit record"))
    }
}

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif
