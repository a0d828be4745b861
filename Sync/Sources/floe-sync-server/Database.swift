import Foundation
import FloeSync
import Logging
import PostgresNIO

/// The server's PostgreSQL side: one table per synced class (a column per property; `jsonb`
/// for lists, sets, maps, mixed values and embedded objects; links as the target's primary key), the change log
/// (`floe_log`, ordered by the server version, drawn from the sequence `floe_server_version`),
/// and each client's newest applied local version (`floe_clients`).
struct Database: Sendable {
    let client: PostgresClient
    let schema: SyncSchema
    let logger: Logger

    static func quote(_ name: String) -> String { "\"" + name.replacingOccurrences(of: "\"", with: "\"\"") + "\"" }

    /// The column type of `property`.
    func columnType(_ property: SyncProperty) -> String {
        if property.collection != .single || property.kind == .mixed || property.kind == .embedded { return "jsonb" }
        switch property.kind {
        case .bool: return "boolean"
        case .int: return "bigint"
        case .float, .double, .date: return "double precision"
        case .string, .objectId, .decimal: return "text"
        case .data: return "bytea"
        case .uuid: return "uuid"
        case .mixed, .embedded: return "jsonb"
        case .link:
            guard let target = property.target.flatMap({ schema[$0] }), let key = target.property(named: target.primaryKey) else { return "text" }
            return columnType(key)
        }
    }

    /// `$n` read as the column's type (every value is bound as text).
    func placeholder(_ index: Int, _ property: SyncProperty) -> String {
        let type = columnType(property)
        return type == "bytea" ? "decode($\(index), 'base64')" : "$\(index)::\(type)"
    }

    /// The text bound for `value`.
    static func text(_ value: SyncValue) throws -> String? {
        switch value {
        case .null: return nil
        case .bool(let bool): return bool ? "true" : "false"
        case .int(let int): return String(int)
        case .double(let double), .date(let double):
            if double.isNaN { return "NaN" }
            if double.isInfinite { return double > 0 ? "Infinity" : "-Infinity" }
            return "\(double)"
        case .string(let string), .decimal(let string), .objectId(let string): return string
        case .data(let data): return data.base64EncodedString()
        case .uuid(let uuid): return uuid.uuidString
        case .link(_, let key): return try text(key)
        case .list, .map: return String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
        }
    }

    /// The text bound for `value` of `property`: in a `jsonb` column (collections, mixed values,
    /// embedded objects) the value's JSON, so that a mixed value keeps its type (and a mixed
    /// string is JSON at all); elsewhere ``text(_:)``.
    static func text(_ value: SyncValue, for property: SyncProperty) throws -> String? {
        guard CaptureSQL.isJSON(property) else { return try text(value) }
        if case .null = value { return nil }
        return String(decoding: try JSONEncoder().encode(value), as: UTF8.self)
    }

    /// Creates what is missing: the tables of the schema's classes (and columns added to them), the log, the
    /// sequence; and (re)installs the capture of writes made directly in the tables.
    func prepare() async throws {
        for statement in Self.logStatements + tableStatements() {
            try await client.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        try await installCapture()
    }

    /// The statements that create the sequence, the log and the clients' cursors where missing.
    static let logStatements = [
        "CREATE SEQUENCE IF NOT EXISTS floe_server_version",
        """
        CREATE TABLE IF NOT EXISTS floe_log (version bigint NOT NULL, seq integer NOT NULL, class text NOT NULL,
            key text NOT NULL, change jsonb NOT NULL, PRIMARY KEY (version, seq))
        """,
        // With rules, each logged change keeps the object's values before and after it, so that
        // a download can tell whether the object was, and is, readable by the connection's token.
        "ALTER TABLE floe_log ADD COLUMN IF NOT EXISTS images jsonb",
        "CREATE TABLE IF NOT EXISTS floe_clients (client_id text PRIMARY KEY, local_version bigint NOT NULL)",
    ]

    /// The statements that create each class's table, and add the columns it lacks.
    func tableStatements() -> [String] {
        var statements: [String] = []
        for syncClass in schema.classes {
            let table = Self.quote(syncClass.name)
            var columns: [String] = []
            for property in syncClass.properties {
                let key = property.name == syncClass.primaryKey ? " PRIMARY KEY" : ""
                columns.append("\(Self.quote(property.name)) \(columnType(property))\(key)")
            }
            statements.append("CREATE TABLE IF NOT EXISTS \(table) (\(columns.joined(separator: ", ")))")
            for property in syncClass.properties where property.name != syncClass.primaryKey {
                statements.append("ALTER TABLE \(table) ADD COLUMN IF NOT EXISTS \(Self.quote(property.name)) \(columnType(property))")
            }
        }
        return statements
    }

    /// Installs the capture of writes made directly in PostgreSQL (``CaptureSQL``): the shared
    /// functions and each class's trigger functions are replaced (they follow the schema), the
    /// triggers created where missing (one disabled by hand stays disabled). Servers starting
    /// together take turns.
    func installCapture() async throws {
        try await client.withTransaction(logger: logger) { connection in
            try await connection.query("SELECT pg_advisory_xact_lock(7401102)", logger: logger)
            try await installCapture(on: connection)
        }
    }

    /// The capture's functions and missing triggers, installed on `connection` (in its transaction).
    func installCapture(on connection: PostgresConnection) async throws {
        let capture = CaptureSQL(schema: schema)
        for statement in CaptureSQL.sharedFunctions {
            try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
        }
        for embedded in capture.embeddedTypes() {
            try await connection.query(PostgresQuery(unsafeSQL: capture.embeddedFunction(embedded.name, properties: embedded.properties)), logger: logger)
        }
        for syncClass in schema.classes {
            for statement in capture.functions(for: syncClass) {
                try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger)
            }
            var existing: Set<String> = []
            let table = Self.quote(syncClass.name)
            for try await name in try await connection.query("SELECT tgname::text FROM pg_trigger WHERE tgrelid = \(table)::regclass", logger: logger).decode(String.self) {
                existing.insert(name)
            }
            let triggers = capture.triggers(for: syncClass)
            if !existing.contains("floe_capture_row") { try await connection.query(PostgresQuery(unsafeSQL: triggers.row), logger: logger) }
            if !existing.contains("floe_capture_statement") { try await connection.query(PostgresQuery(unsafeSQL: triggers.statement), logger: logger) }
        }
    }

    /// The newest server version.
    func latestVersion() async throws -> UInt64 {
        let rows = try await client.query("SELECT coalesce(max(version), 0)::bigint FROM floe_log", logger: logger)
        for try await version in rows.decode(Int64.self) { return UInt64(version) }
        return 0
    }

    /// Follows the versions committed through every server on this database, calling `publish`
    /// with each: an upload's transaction notifies the channel `floe_log` with its version, which
    /// PostgreSQL delivers when it commits. On (re)connecting, the newest version is published
    /// first, so a version committed while no one listened is not missed. Runs until cancelled.
    func followCommits(_ publish: @escaping @Sendable (UInt64) async -> Void) async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: "floe_log") { notifications in
                        await publish(try await latestVersion())
                        for try await notification in notifications {
                            if let version = UInt64(notification.payload) { await publish(version) }
                        }
                    }
                }
            } catch {
                logger.warning("not following other servers' commits, retrying in 1 s: \(String(reflecting: error))")
            }
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// The newest local version of `clientID` the server applied.
    func acknowledgedLocalVersion(of clientID: String) async throws -> UInt64 {
        let rows = try await client.query("SELECT local_version FROM floe_clients WHERE client_id = \(clientID)", logger: logger)
        for try await version in rows.decode(Int64.self) { return UInt64(version) }
        return 0
    }

    /// Applies an upload in one transaction: the transactions after the client's newest applied
    /// local version, each change by the conflict rules, the applied ones logged under one new
    /// server version. Returns that version (the newest one when nothing applied).
    ///
    /// With `rules`, every change is first authorized against the stored objects (read under a
    /// row lock) and the batch as a whole: a refusal throws ``SyncError/forbidden(className:key:operation:rule:)``
    /// and rolls back everything.
    func apply(_ transactions: [UploadedTransaction], through: UInt64, from clientID: String,
               rules: SyncRules? = nil, claims: [String: SyncValue] = [:]) async throws -> UInt64 {
        try await client.withTransaction(logger: logger) { connection in
            // Uploads commit one at a time, so server versions commit in order: a reader that
            // has seen version n has seen everything before it.
            // `floe.origin` tells the capture triggers that these writes are logged here.
            try await connection.query("SELECT pg_advisory_xact_lock(7401101), set_config('floe.origin', 'sync', true)", logger: logger)
            var done: Int64 = 0
            for try await version in try await connection.query("SELECT local_version FROM floe_clients WHERE client_id = \(clientID)", logger: logger).decode(Int64.self) {
                done = version
            }
            var fresh = transactions.filter { $0.localVersion > UInt64(done) }
            try await mergeCollections(in: &fresh, on: connection)
            var images: [ObjectImages?] = []
            if let rules {
                images = try await authorize(fresh.flatMap(\.changes), rules: rules, claims: claims, on: connection)
            }
            var applied: [ObjectChange] = []
            // Consecutive inserts into one class go in one statement (keys distinct, the same
            // properties); everything else, one statement each, in order.
            var inserts: [ObjectChange] = []
            var insertKeys: Set<SyncValue> = []
            func flush() async throws {
                guard !inserts.isEmpty else { return }
                try await insert(inserts, on: connection)
                applied += inserts
                inserts = []
                insertKeys = []
            }
            for transaction in fresh {
                for change in transaction.changes {
                    if change.operation == .insert {
                        if let first = inserts.first, first.className != change.className || Set(first.values.keys) != Set(change.values.keys)
                            || insertKeys.contains(change.key) || inserts.count >= 1000 {
                            try await flush()
                        }
                        inserts.append(change)
                        insertKeys.insert(change.key)
                        continue
                    }
                    try await flush()
                    if try await apply(change, on: connection) { applied.append(change) }
                }
            }
            try await flush()
            var version: Int64 = 0
            if applied.isEmpty {
                for try await latest in try await connection.query("SELECT coalesce(max(version), 0)::bigint FROM floe_log", logger: logger).decode(Int64.self) {
                    version = latest
                }
            } else {
                for try await next in try await connection.query("SELECT nextval('floe_server_version')", logger: logger).decode(Int64.self) {
                    version = next
                }
                let encoder = JSONEncoder()
                let sequence = applied.indices.map { Int64($0) }
                let classes = applied.map(\.className)
                let keys = try applied.map { try Self.text($0.key) ?? "" }
                let changes = try applied.map { String(decoding: try encoder.encode($0), as: UTF8.self) }
                if rules != nil {
                    // The images of the applied changes, in the same order ('' for none).
                    let texts = try images.map { try $0.map { String(decoding: try encoder.encode($0), as: UTF8.self) } ?? "" }
                    try await connection.query("""
                        WITH logged AS (INSERT INTO floe_log (version, seq, class, key, change, images)
                        SELECT \(version), s, c, k, ch::jsonb, NULLIF(im, '')::jsonb FROM unnest(\(sequence)::bigint[], \(classes)::text[], \(keys)::text[], \(changes)::text[], \(texts)::text[]) AS u(s, c, k, ch, im))
                        SELECT pg_notify('floe_log', \(String(version)))
                        """, logger: logger)
                } else {
                    try await connection.query("""
                        WITH logged AS (INSERT INTO floe_log (version, seq, class, key, change)
                        SELECT \(version), s, c, k, ch::jsonb FROM unnest(\(sequence)::bigint[], \(classes)::text[], \(keys)::text[], \(changes)::text[]) AS u(s, c, k, ch))
                        SELECT pg_notify('floe_log', \(String(version)))
                        """, logger: logger)
                }
            }
            let newest = Int64(max(UInt64(done), through))
            try await connection.query("""
                INSERT INTO floe_clients (client_id, local_version) VALUES (\(clientID), \(newest))
                ON CONFLICT (client_id) DO UPDATE SET local_version = EXCLUDED.local_version
                """, logger: logger)
            return UInt64(version)
        }
    }

    /// Replaces each change that carries collection bases by the change as merged into the
    /// stored objects (read under a row lock, as the batch before it leaves them): what is
    /// authorized, written and logged (``ConflictRules/resolved(_:current:)``).
    private func mergeCollections(in transactions: inout [UploadedTransaction], on connection: PostgresConnection) async throws {
        let merging = Set(transactions.flatMap(\.changes).filter { $0.bases != nil }.map(\.objectID))
        guard !merging.isEmpty else { return }
        var working = try await objects(merging, on: connection)
        for transaction in transactions.indices {
            for index in transactions[transaction].changes.indices {
                let change = transactions[transaction].changes[index]
                guard merging.contains(change.objectID) else { continue }
                let resolved = ConflictRules.resolved(change, current: working[change.objectID])
                ConflictRules.apply(resolved, to: &working)
                transactions[transaction].changes[index] = resolved
            }
        }
    }

    /// Authorizes `changes` in order against the stored objects (locked until the transaction
    /// ends) as the batch changes them, returning the images of the changes that apply (an
    /// update or delete of a missing object applies nowhere), in order. An insert that creates
    /// its object has none: its values and key are the image (see `insertedValues`), and not
    /// logging them twice keeps the rules' cost on an upload of new objects down.
    private func authorize(_ changes: [ObjectChange], rules: SyncRules, claims: [String: SyncValue],
                           on connection: PostgresConnection) async throws -> [ObjectImages?] {
        var objects = try await objects(Set(changes.map(\.objectID)), on: connection)
        var images: [ObjectImages?] = []
        for change in changes {
            let before = objects[change.objectID]
            let after = try rules.authorize(change, before: before, claims: claims)
            if change.operation == .update && before == nil { continue }
            if change.operation == .delete && before == nil { continue }
            objects[change.objectID] = after
            images.append(before == nil && change.operation == .insert ? nil : ObjectImages(before: before, after: after))
        }
        return images
    }

    /// The answer to `refetch`: each object of `ids` as the token with `claims` may read it now
    /// (see `ObjectChange.image`), read outside any upload's transaction.
    func images(of ids: [SyncObjectID], rules: SyncRules?, claims: [String: SyncValue]) async throws -> [ObjectChange] {
        let stored = try await client.withConnection { connection in
            try await objects(Set(ids), on: connection, locking: false)
        }
        return ids.map { ObjectChange.image(of: $0, values: stored[$0], rules: rules, claims: claims) }
    }

    /// The stored values of the objects `ids`, locked for the transaction unless `locking` is false.
    private func objects(_ ids: Set<SyncObjectID>, on connection: PostgresConnection, locking: Bool = true) async throws -> [SyncObjectID: [String: SyncValue]] {
        var objects: [SyncObjectID: [String: SyncValue]] = [:]
        for (className, members) in Dictionary(grouping: ids, by: \.className) {
            guard let syncClass = schema[className], let keyProperty = syncClass.property(named: syncClass.primaryKey) else { continue }
            let keys = try members.map { try Self.text($0.key) ?? "" }
            let columns = syncClass.properties.map { "\(Self.quote($0.name))::text" }.joined(separator: ", ")
            var bindings = PostgresBindings()
            bindings.append(keys)
            let sql = "SELECT \(columns) FROM \(Self.quote(className)) WHERE \(Self.quote(syncClass.primaryKey)) = ANY($1::text[]::\(columnType(keyProperty))[])" + (locking ? " FOR UPDATE" : "")
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger) {
                var object: [String: SyncValue] = [:]
                for (property, cell) in zip(syncClass.properties, row) {
                    object[property.name] = try value(try cell.decode(String?.self), property)
                }
                guard let key = object[syncClass.primaryKey] else { continue }
                objects[SyncObjectID(className: className, key: key)] = object
            }
        }
        return objects
    }

    /// Inserts of one class with the same properties and distinct keys, in one statement:
    /// each writes every property it carries (creating the row, or overwriting it).
    private func insert(_ changes: [ObjectChange], on connection: PostgresConnection) async throws {
        guard let first = changes.first, let syncClass = schema[first.className],
              let keyProperty = syncClass.property(named: syncClass.primaryKey) else { return }
        let properties = first.values.keys.sorted().filter { $0 != syncClass.primaryKey }.compactMap { syncClass.property(named: $0) }
        var bindings = PostgresBindings(capacity: changes.count * (properties.count + 1))
        var rows: [String] = []
        for change in changes {
            var row: [String] = []
            bindings.append(try Self.text(change.key))
            row.append(placeholder(bindings.count, keyProperty))
            for property in properties {
                bindings.append(try Self.text(change.values[property.name] ?? .null, for: property))
                row.append(placeholder(bindings.count, property))
            }
            rows.append("(" + row.joined(separator: ", ") + ")")
        }
        let keyColumn = Self.quote(syncClass.primaryKey)
        let names = properties.map { Self.quote($0.name) }
        let update = names.isEmpty ? "NOTHING" : "UPDATE SET " + names.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
        let sql = "INSERT INTO \(Self.quote(syncClass.name)) (\(([keyColumn] + names).joined(separator: ", "))) VALUES \(rows.joined(separator: ", ")) ON CONFLICT (\(keyColumn)) DO \(update)"
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
    }

    /// One change by the conflict rules; whether it applied.
    private func apply(_ change: ObjectChange, on connection: PostgresConnection) async throws -> Bool {
        guard let syncClass = schema[change.className], let keyProperty = syncClass.property(named: syncClass.primaryKey) else { return false }
        let table = Self.quote(syncClass.name)
        var bindings = PostgresBindings()
        bindings.append(try Self.text(change.key))
        let keyColumn = Self.quote(syncClass.primaryKey)
        let keyMatch = "\(keyColumn) = \(placeholder(1, keyProperty))"
        var names: [String] = []
        var placeholders: [String] = []
        for (name, value) in change.values.sorted(by: { $0.key < $1.key }) where name != syncClass.primaryKey {
            guard let property = syncClass.property(named: name) else { continue }
            bindings.append(try Self.text(value, for: property))
            names.append(Self.quote(name))
            placeholders.append(placeholder(bindings.count, property))
        }
        let sql: String
        switch change.operation {
        case .insert:
            let update = names.isEmpty ? "NOTHING" : "UPDATE SET " + names.map { "\($0) = EXCLUDED.\($0)" }.joined(separator: ", ")
            sql = "INSERT INTO \(table) (\(([keyColumn] + names).joined(separator: ", "))) VALUES (\(([placeholder(1, keyProperty)] + placeholders).joined(separator: ", "))) ON CONFLICT (\(keyColumn)) DO \(update) RETURNING 1"
            try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger)
            return true
        case .update:
            if names.isEmpty {
                sql = "SELECT 1 FROM \(table) WHERE \(keyMatch)"
            } else {
                sql = "UPDATE \(table) SET \(zip(names, placeholders).map { "\($0) = \($1)" }.joined(separator: ", ")) WHERE \(keyMatch) RETURNING 1"
            }
        case .delete:
            sql = "DELETE FROM \(table) WHERE \(keyMatch) RETURNING 1"
        }
        var found = false
        for try await _ in try await connection.query(PostgresQuery(unsafeSQL: sql, binds: bindings), logger: logger) { found = true }
        return found
    }

    /// One page of the log as ``loggedChanges(after:limit:filter:binds:images:)`` reads it: each
    /// change the JSON of an `ObjectChange`, as logged (passed on without decoding when no rule
    /// judges it).
    struct LogPage: Sendable {
        struct Row: Sendable {
            let className: String
            let change: String
            let images: String?
        }
        /// A row the rules judge, decoded once for every connection the page is shared with.
        struct Judged: Sendable {
            let change: ObjectChange
            let images: ObjectImages
        }
        let changes: [Row]
        let through: UInt64
        /// With a filter, each row of a class not passed on as logged, decoded (nil for the others).
        var judged: [Judged?] = []
    }

    /// The page after `version` that passes `filter` (everything without one), with images when filtered.
    func page(after version: UInt64, limit: Int, filter: ReadFilter?) async throws -> LogPage {
        if let filter {
            var page = try await loggedChanges(after: version, limit: limit, filter: filter.sql, binds: filter.binds, images: true)
            let decoder = JSONDecoder()
            page.judged = try page.changes.map { row in
                if filter.passedOn.contains(row.className) { return nil }
                let change = try decoder.decode(ObjectChange.self, from: Data(row.change.utf8))
                let images = try row.images.map { try decoder.decode(ObjectImages.self, from: Data($0.utf8)) }
                    ?? ObjectImages(before: nil, after: change.operation == .insert ? insertedValues(change) : nil)
                return LogPage.Judged(change: change, images: images)
            }
            return page
        }
        return try await loggedChanges(after: version, limit: limit, images: false)
    }

    /// What a token may read of the log, as SQL over its columns: each class's ``ReadCondition``
    /// for the token's claims. A class the token reads none of is left out, one it reads all of
    /// is `passedOn` (its changes go out as logged), and the rest pass where the object, before
    /// or after the change, may be readable. A change logged without images (an insert of a new
    /// object, or one logged before the rules were on) is tested as an insert of its own values.
    /// The claims do not change within a connection, so it is made once per connection.
    struct ReadFilter: Sendable {
        let sql: String
        let binds: PostgresBindings
        let passedOn: Set<String>
        /// Each class's condition: connections whose filters have the same conditions read the same pages.
        let conditions: [String: ReadCondition]
    }

    func readFilter(rules: SyncRules, claims: [String: SyncValue]) -> ReadFilter {
        var binds = PostgresBindings()
        var passedOn: Set<String> = []
        var clauses: [String] = []
        var conditions: [String: ReadCondition] = [:]
        for syncClass in schema.classes {
            let condition = rules.readCondition(className: syncClass.name, claims: claims)
            conditions[syncClass.name] = condition
            if condition == .nothing { continue }
            binds.append(syncClass.name)
            let isClass = "class = $\(binds.count)::text"
            if condition == .everything {
                passedOn.insert(syncClass.name)
                clauses.append(isClass)
                continue
            }
            let inserted = condition.sql(over: "(change -> 'values')", binds: &binds)
            let before = condition.sql(over: "(images -> 'before')", binds: &binds)
            let after = condition.sql(over: "(images -> 'after')", binds: &binds)
            clauses.append("""
                (\(isClass) AND ((images IS NULL AND change ->> 'operation' = 'insert' AND \(inserted))
                    OR (images ? 'before' AND \(before)) OR (images ? 'after' AND \(after))))
                """)
        }
        return ReadFilter(sql: clauses.isEmpty ? "FALSE" : "(" + clauses.joined(separator: " OR ") + ")", binds: binds, passedOn: passedOn,
                          conditions: conditions)
    }

    /// What a token with `claims` may see of `page` (read with `filter`, made for the same
    /// claims), as ``SyncRules/visibleChange(_:before:after:claims:)`` makes each change (the
    /// whole object when it becomes readable, a delete when it stops being), each the JSON of an
    /// `ObjectChange`. PostgreSQL picked the page's changes by the filter; the rules decide on those.
    func visible(_ page: LogPage, rules: SyncRules, claims: [String: SyncValue], filter: ReadFilter) throws -> [String] {
        guard page.judged.count == page.changes.count else {
            throw SyncError.serverUnavailable(detail: "a page of the log read without the read filter was judged by the rules")
        }
        let encoder = JSONEncoder()
        var visible: [String] = []
        for (row, judged) in zip(page.changes, page.judged) {
            guard let judged else {
                visible.append(row.change)
                continue
            }
            guard let shown = rules.visibleChange(judged.change, before: judged.images.before, after: judged.images.after, claims: claims) else { continue }
            // Readable before and after: the change goes as logged, not encoded again.
            visible.append(shown == judged.change ? row.change : String(decoding: try encoder.encode(shown), as: UTF8.self))
        }
        return visible
    }

    /// An insert's values with its key, as the object it creates.
    private func insertedValues(_ change: ObjectChange) -> [String: SyncValue] {
        var values = change.values
        if let primaryKey = schema[change.className]?.primaryKey { values[primaryKey] = change.key }
        return values
    }

    /// The logged changes after `version` that pass `filter` (SQL over the log's columns, with
    /// its `binds`), in order: whole server versions, about `limit` at most (a larger version
    /// comes whole). `through` is the newest version the page covers: the last one it reached
    /// when it was cut at `limit`, else the newest version logged, read by the same statement
    /// (so in the same snapshot). Every version up to that one is whole, since uploads commit
    /// in order, and so a page the filter left empty still moves its reader on.
    private func loggedChanges(after version: UInt64, limit: Int, filter: String = "TRUE",
                               binds: PostgresBindings = PostgresBindings(), images: Bool) async throws -> LogPage {
        var changes: [LogPage.Row] = []
        var last: (version: Int64, seq: Int32)?
        var newest = Int64(version)
        let imagesColumn = images ? "images::text" : "NULL::text"
        let rows = try await client.query(PostgresQuery(unsafeSQL: """
            WITH newest AS (SELECT coalesce(max(version), 0)::bigint AS version FROM floe_log)
            SELECT newest.version, page.version, page.seq, page.class, page.change, page.images FROM newest LEFT JOIN LATERAL (
                SELECT version, seq, class, change::text AS change, \(imagesColumn) AS images FROM floe_log
                WHERE version > \(Int64(version)) AND version <= newest.version AND \(filter) ORDER BY version, seq LIMIT \(limit)
            ) page ON TRUE ORDER BY page.version, page.seq
            """, binds: binds), logger: logger)
        for try await (latest, rowVersion, seq, className, text, imagesText) in rows.decode((Int64, Int64?, Int32?, String?, String?, String?).self) {
            newest = max(newest, latest)
            guard let rowVersion, let seq, let className, let text else { continue }
            last = (rowVersion, seq)
            changes.append(LogPage.Row(className: className, change: text, images: imagesText))
        }
        guard let last, changes.count == limit else { return LogPage(changes: changes, through: UInt64(newest)) }
        // The page may have cut the last version: fetch the rest of it.
        let rest = try await client.query(PostgresQuery(unsafeSQL: """
            SELECT class, change::text, \(imagesColumn) FROM floe_log
            WHERE version = \(last.version) AND seq > \(last.seq) AND \(filter) ORDER BY seq
            """, binds: binds), logger: logger)
        for try await (className, text, imagesText) in rest.decode((String, String, String?).self) {
            changes.append(LogPage.Row(className: className, change: text, images: imagesText))
        }
        return LogPage(changes: changes, through: UInt64(last.version))
    }

    /// Every object in the tables, as sync values (for comparing a client's realm with the database).
    func state() async throws -> [String: [String: [String: SyncValue]]] {
        var state: [String: [String: [String: SyncValue]]] = [:]
        for syncClass in schema.classes {
            let columns = syncClass.properties.map { "\(Self.quote($0.name))::text" }.joined(separator: ", ")
            let rows = try await client.query(PostgresQuery(unsafeSQL: "SELECT \(columns) FROM \(Self.quote(syncClass.name))"), logger: logger)
            var objects: [String: [String: SyncValue]] = [:]
            for try await row in rows {
                var object: [String: SyncValue] = [:]
                for (property, cell) in zip(syncClass.properties, row) {
                    object[property.name] = try value(try cell.decode(String?.self), property)
                }
                guard let key = object[syncClass.primaryKey], let name = try Self.text(key) else { continue }
                objects[name] = object
            }
            state[syncClass.name] = objects
        }
        return state
    }

    /// A column's text back as a sync value.
    private func value(_ text: String?, _ property: SyncProperty) throws -> SyncValue {
        guard let text else {
            if property.collection == .list || property.collection == .set { return .list([]) }
            if property.collection == .map { return .map([:]) }
            return .null
        }
        if property.collection != .single || property.kind == .mixed || property.kind == .embedded {
            return try JSONDecoder().decode(SyncValue.self, from: Data(text.utf8))
        }
        switch property.kind {
        case .bool: return .bool(text == "true" || text == "t")
        case .int: return .int(Int64(text) ?? 0)
        case .float, .double: return .double(Double(text) ?? .nan)
        case .date: return .date(Double(text) ?? .nan)
        case .string: return .string(text)
        case .decimal: return .decimal(text)
        case .objectId: return .objectId(text)
        case .uuid: return UUID(uuidString: text).map(SyncValue.uuid) ?? .string(text)
        case .data:
            var bytes = Data()
            var index = text.index(text.startIndex, offsetBy: 2)
            while index < text.endIndex, let next = text.index(index, offsetBy: 2, limitedBy: text.endIndex) {
                bytes.append(UInt8(text[index..<next], radix: 16) ?? 0)
                index = next
            }
            return .data(bytes)
        case .mixed, .embedded: return .string(text)
        case .link:
            guard let target = property.target.flatMap({ schema[$0] }), let key = target.property(named: target.primaryKey) else { return .string(text) }
            return .link(className: target.name, key: try value(text, key))
        }
    }
}

/// An object's values before and after one logged change (nil: it did not exist).
struct ObjectImages: Codable, Sendable {
    var before: [String: SyncValue]?
    var after: [String: SyncValue]?
}
