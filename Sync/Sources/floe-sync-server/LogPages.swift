import FloeSync

/// Pages of the log, read once for every connection that wants the same one. A commit wakes
/// every connection at once, and most want the page after the same version through the same
/// filter (no rules, or the same conditions): without sharing, a thousand connections would send
/// PostgreSQL a thousand identical queries per commit.
///
/// A page is correct whenever it is handed out: it holds whole server versions up to its
/// `through`, and a connection given an older page reads on from there. So a read in flight is
/// joined, and the last pages read are kept for connections that ask a moment later.
actor LogPages {
    struct Key: Hashable {
        let after: UInt64
        /// Nil: the whole log (no rules).
        let conditions: [String: ReadCondition]?
    }

    let database: Database
    /// False: every connection reads its own pages (`--no-shared-pages`, to measure what sharing saves).
    let shared: Bool
    let limit: Int
    /// How many finished pages are kept (each at most `limit` changes, or one larger version,
    /// with their images and decoded changes under rules: a few, since a page may weigh megabytes).
    let kept: Int
    private var reading: [Key: Task<Database.LogPage, any Error>] = [:]
    private var finished: [Key: Database.LogPage] = [:]
    private var order: [Key] = []

    init(database: Database, shared: Bool = true, limit: Int = 5000, kept: Int = 4) {
        self.database = database
        self.shared = shared
        self.limit = limit
        self.kept = kept
    }

    /// The page after `version` through `filter` (nil: unfiltered).
    func page(after version: UInt64, filter: Database.ReadFilter?) async throws -> Database.LogPage {
        guard shared else {
            return try await database.page(after: version, limit: limit, filter: filter)
        }
        let key = Key(after: version, conditions: filter?.conditions)
        if let page = finished[key] { return page }
        if let task = reading[key] { return try await task.value }
        let database = database, limit = limit
        let task = Task { try await database.page(after: version, limit: limit, filter: filter) }
        reading[key] = task
        defer { reading[key] = nil }
        let page = try await task.value
        keep(page, for: key)
        return page
    }

    private func keep(_ page: Database.LogPage, for key: Key) {
        // A page that moves no one on is not kept: handed to a connection woken by a newer
        // commit, it would send that connection back to wait, and round again.
        guard page.through > key.after else { return }
        guard finished.updateValue(page, forKey: key) == nil else { return }
        order.append(key)
        if order.count > kept { finished[order.removeFirst()] = nil }
    }
}
