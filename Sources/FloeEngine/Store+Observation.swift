@_spi(Engine) import FloeStorage

/// Observers of commits: called on the committing thread, in version order, after the new
/// version is published. They must return quickly and never wait for anything the writer holds.
@_spi(Engine) extension Store {
    /// A commit observer: handed each commit, and nil once when the store closes.
    public typealias CommitObserver = @Sendable (CommittedChanges?) -> Void

    /// Registers `observer` for every commit after this call, and returns its identifier with an
    /// (unpinned) snapshot of the version it starts from: no commit falls between the two.
    ///
    /// ```swift
    /// let (id, base) = try store.observeCommits { commit in print(commit?.version ?? 0) }
    /// defer { store.stopObserving(id) }
    /// ```
    ///
    /// - Throws: ``FloeError/closed(path:)`` when the store is closed.
    public func observeCommits(_ observer: @escaping CommitObserver) throws(FloeError) -> (id: UInt64, base: Snapshot) {
        let registered: (UInt64, Snapshot)? = state.withLock { state in
            guard !state.isClosed else { return nil }
            let id = state.nextListener
            state.nextListener += 1
            state.commitObservers[id] = observer
            return (id, Snapshot(version: state.version, group: state.root, pin: nil, damage: damage))
        }
        guard let registered else { throw .closed(path: path) }
        return registered
    }

    /// Forgets an observer registered by ``observeCommits(_:)``.
    public func stopObserving(_ id: UInt64) {
        _ = state.withLock { $0.commitObservers.removeValue(forKey: id) }
    }

    /// Tells the observers (a copy taken under the lock with the publication) about a commit.
    package func notify(_ observers: [CommitObserver], version: UInt64, root: GroupNode, changes: ChangeSet?) {
        guard !observers.isEmpty else { return }
        let commit = CommittedChanges(version: version, snapshot: Snapshot(version: version, group: root, pin: nil, damage: damage),
                                      changes: changes)
        for observer in observers { observer(commit) }
    }
}

@_spi(Engine) extension Store {
    /// The same version as `snapshot`, counted as active (see ``activeVersionCount``) until released:
    /// for snapshots that observers hand on to code that may keep them.
    public func pinned(_ snapshot: Snapshot) -> Snapshot {
        let version = snapshot.version
        state.withLock { $0.pins[version, default: 0] += 1 }
        let pin = VersionPin(version: version) { [weak self] version in
            self?.state.withLock { state in
                if let count = state.pins[version] {
                    if count <= 1 { state.pins[version] = nil } else { state.pins[version] = count - 1 }
                }
            }
        }
        return Snapshot(version: version, group: snapshot.group, pin: pin, damage: snapshot.damage)
    }
}
