@_spi(Engine) import FloeStorage

/// Committed versions read back from the file's chain of commit records (each names the one
/// before it), for consumers that must see every version, however late they come.
///
/// ```swift
/// let history = try store.history(from: 10)
/// for index in 1..<history.versions.count {
///     let changes = try VersionDiff.changes(from: history.snapshot(at: index - 1).group, to: history.snapshot(at: index).group)
/// }
/// ```
@_spi(Engine) public struct VersionHistory: Sendable {
    package let file: StorageFile?
    /// Each version from the first asked for to the newest, with its root's offset (0: empty).
    package let records: [(version: UInt64, rootRef: UInt64)]

    package init(file: StorageFile?, records: [(version: UInt64, rootRef: UInt64)]) {
        self.file = file
        self.records = records
    }

    /// The versions held, oldest first.
    public var versions: [UInt64] { records.map(\.version) }

    /// The version at `index` of ``versions`` (its root loads lazily from the file).
    public func snapshot(at index: Int) throws(FloeError) -> Snapshot {
        let (version, rootRef) = records[index]
        guard rootRef != 0, let file else { return Snapshot(version: version, group: GroupNode(isMutable: false), pin: nil) }
        return Snapshot(version: version, group: try NodeRef<GroupNode>(offset: rootRef, source: file).load(), pin: nil)
    }
}

@_spi(Engine) extension Store {
    /// Every committed version from `version` to the newest, read from the file's commit records.
    ///
    /// - Throws: ``FloeError/versionUnavailable(path:version:oldest:newest:)`` when the file no
    ///   longer holds `version` (compaction copied only later ones), or it is newer than the
    ///   newest commit; in memory, for any version but the newest (nothing keeps the others).
    public func history(from version: UInt64) throws(FloeError) -> VersionHistory {
        let (file, newest, current) = state.withLock { ($0.file, $0.newestRecord, $0.version) }
        guard version <= current else { throw .versionUnavailable(path: path, version: version, oldest: current, newest: current) }
        guard let file else {
            guard version == current else { throw .versionUnavailable(path: path, version: version, oldest: current, newest: current) }
            return VersionHistory(file: nil, records: [(version, 0)])
        }
        return try Self.history(from: version, in: file, newest: newest, path: path)
    }

    /// The rest of `history`'s file after its newest version: for a reader that fell behind
    /// when compaction replaced the file (the old one, retired, still holds those commits).
    public func history(continuing history: VersionHistory) throws(FloeError) -> VersionHistory? {
        guard let file = history.file, let last = history.records.last, file.isRetired,
              let newest = file.lastCommit, newest.version > last.version else { return nil }
        return try Self.history(from: last.version, in: file, newest: newest, path: path)
    }

    private static func history(from version: UInt64, in file: StorageFile, newest: CommitRecord?, path: String) throws(FloeError) -> VersionHistory {
        var records: [(version: UInt64, rootRef: UInt64)] = []
        var record = newest
        let scanner = CommitScanner(handle: file.handle, fileSize: file.endOffset)
        while let current = record, current.version > version {
            records.append((current.version, current.rootRef))
            guard current.previousCommit != 0 else {
                // The chain starts here: version 0 is the empty file before the first commit;
                // anything older than a compacted file's first record is gone.
                guard version == 0, current.version == 1 else {
                    throw .versionUnavailable(path: path, version: version, oldest: current.version, newest: newest?.version ?? 0)
                }
                record = nil
                break
            }
            guard let previous = try scanner.readRecord(at: current.previousCommit), previous.version < current.version else {
                throw .corruptFile(path: path, offset: current.previousCommit, detail: "the commit record before version \(current.version) is unreadable")
            }
            record = previous
        }
        records.append((version, record?.version == version ? record!.rootRef : 0))
        return VersionHistory(file: file, records: records.reversed())
    }
}

/// History that compaction keeps: a sync client stores in the file (in a table named
/// `Store.historyPinTable`, column `Store.historyPinColumn`) the newest local version its
/// server has acknowledged; compaction then copies every version from the oldest such pin to
/// the newest instead of the newest alone, so the change feed can still be read from it. The
/// pin lives in the file itself, so it holds whoever compacts: a commit's automatic
/// compaction, `compact()`, or `shouldCompactOnLaunch` before any sync client has started.
extension Store {
    /// The table whose rows pin history (FloeSync's `FloeSyncState`).
    package static let historyPinTable = "FloeSyncState"
    /// The integer column that holds each row's pinned version.
    package static let historyPinColumn = "acknowledgedLocalVersion"

    /// The oldest version a pin in the newest version asks to keep (nil: no pin, or nothing
    /// older than the newest version to keep).
    package func pinnedHistoryVersion() throws(FloeError) -> UInt64? {
        let (version, root) = state.withLock { ($0.version, $0.root) }
        let snapshot = Snapshot(version: version, group: root, pin: nil)
        guard let table = try snapshot.tableIfPresent(named: Self.historyPinTable),
              let column = try snapshot.spec(of: table).columnIndex(named: Self.historyPinColumn) else { return nil }
        var oldest: UInt64?
        for key in try snapshot.objectKeys(in: table) {
            guard case .int(let pinned) = try snapshot.value(in: table, key: key, column: column) else { continue }
            let pin = UInt64(max(0, pinned))
            oldest = min(oldest ?? pin, pin)
        }
        guard let oldest, oldest < version else { return nil }
        return oldest
    }

    /// The versions compaction must copy, oldest first (nil: the newest alone).
    package func retainedHistory(in file: StorageFile) throws(FloeError) -> [(version: UInt64, rootRef: UInt64)]? {
        guard let pinned = try pinnedHistoryVersion() else { return nil }
        let newest = state.withLock { $0.newestRecord }
        var history: [(version: UInt64, rootRef: UInt64)]
        do {
            history = try Self.history(from: pinned, in: file, newest: newest, path: path).records
        } catch .versionUnavailable(_, _, let oldest, _) where oldest > pinned {
            // An earlier compaction (before the pin was made) kept less: keep all there is.
            history = try Self.history(from: oldest, in: file, newest: newest, path: path).records
        }
        // Version 0 is the empty file before the first commit: the copy's chain starts at 1,
        // which is how a file that was never compacted starts too.
        if history.first?.version == 0 { history.removeFirst() }
        return history
    }
}
