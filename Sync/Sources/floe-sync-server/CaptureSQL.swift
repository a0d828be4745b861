import FloeSync

/// Writes made directly in PostgreSQL (another service, plain SQL, `COPY`) reach devices like
/// any client's change: triggers on each class's table log them into `floe_log`, as the server
/// logs an upload. This type writes that SQL for a schema; ``Database/installCapture()`` runs it.
///
/// - A statement-level trigger (`floe_capture_statement`) takes the upload lock before the
///   statement touches a row, so a transaction that writes a class's table commits its server
///   version in order with uploads (and cannot deadlock with one over a row it locked first).
///   A `TRUNCATE` is logged as a delete of every object.
/// - A row-level trigger (`floe_capture_row`) logs each row's change with the object's images
///   before and after it (what the read rules judge): an insert with every value, an update
///   with the values that changed (none: nothing logged), a delete. A changed primary key is a
///   delete of the old object and an insert of the new one. A transaction's changes share one
///   server version, drawn at its first change, and its commit notifies `floe_log`.
/// - A value a device could not hold (a required value set to NULL, a number that is not
///   finite, a decimal or identifier that does not parse, JSON that is not the sync form of the
///   property's type) fails the statement with an error naming the class, property and value.
/// - The server's own writes set `floe.origin` to `sync` in their transaction, which both
///   triggers skip (their `WHEN` clause, without a call).
///
/// Turning capture off for one class is a plain `ALTER TABLE "Todo" DISABLE TRIGGER
/// floe_capture_row, DISABLE TRIGGER floe_capture_statement`; the server creates the triggers
/// only where they are missing, so a restart keeps them off.
struct CaptureSQL {
    let schema: SyncSchema

    /// The advisory lock every write to the log takes (uploads and captured writes alike).
    static let uploadLock = 7401101
    static let skipOwnWrites = "current_setting('floe.origin', true) IS DISTINCT FROM 'sync'"

    static func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
    static func quote(_ name: String) -> String { Database.quote(name) }

    /// The functions every class's triggers share: logging one change, and the checks that a
    /// `jsonb` value is the sync form of a value (`floe_is_scalar`, `floe_is_value`).
    static var sharedFunctions: [String] {
        [
            """
            CREATE OR REPLACE FUNCTION floe_tag(value jsonb) RETURNS text LANGUAGE sql IMMUTABLE AS $$
                SELECT CASE WHEN jsonb_typeof(value) = 'object' AND (SELECT count(*) FROM jsonb_object_keys(value)) = 1
                    THEN (SELECT key FROM jsonb_object_keys(value) AS key) END
            $$
            """,
            """
            CREATE OR REPLACE FUNCTION floe_is_scalar(value jsonb, tag text) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
            DECLARE
                tagged jsonb := value -> tag;
                text_value text := value ->> tag;
            BEGIN
                IF floe_tag(value) IS DISTINCT FROM tag THEN RETURN false; END IF;
                CASE tag
                WHEN 'bool' THEN RETURN jsonb_typeof(tagged) = 'boolean';
                WHEN 'int' THEN
                    IF jsonb_typeof(tagged) <> 'number' OR text_value !~ '^-?[0-9]{1,19}$' THEN RETURN false; END IF;
                    RETURN text_value::numeric BETWEEN -9223372036854775808 AND 9223372036854775807;
                WHEN 'double', 'date' THEN
                    IF jsonb_typeof(tagged) <> 'number' THEN RETURN false; END IF;
                    RETURN abs(text_value::numeric) < 1.7976931348623157e308;
                WHEN 'string' THEN RETURN jsonb_typeof(tagged) = 'string';
                WHEN 'decimal' THEN RETURN jsonb_typeof(tagged) = 'string' AND text_value ~* \(literal(decimalPattern));
                WHEN 'objectId' THEN RETURN jsonb_typeof(tagged) = 'string' AND text_value ~ \(literal(objectIdPattern));
                WHEN 'uuid' THEN RETURN jsonb_typeof(tagged) = 'string' AND text_value ~ \(literal(uuidPattern));
                WHEN 'data' THEN RETURN jsonb_typeof(tagged) = 'string' AND text_value ~ \(literal(base64Pattern));
                ELSE RETURN false;
                END CASE;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION floe_is_value(value jsonb) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
            DECLARE
                tag text := floe_tag(value);
            BEGIN
                IF value = 'null'::jsonb THEN RETURN true; END IF;
                IF tag IS NULL THEN RETURN false; END IF;
                CASE tag
                WHEN 'list' THEN
                    IF jsonb_typeof(value -> 'list') <> 'array' THEN RETURN false; END IF;
                    RETURN NOT EXISTS (SELECT 1 FROM jsonb_array_elements(value -> 'list') AS e(v) WHERE NOT floe_is_value(e.v));
                WHEN 'map' THEN
                    IF jsonb_typeof(value -> 'map') <> 'object' THEN RETURN false; END IF;
                    RETURN NOT EXISTS (SELECT 1 FROM jsonb_each(value -> 'map') AS m(k, v) WHERE NOT floe_is_value(m.v));
                WHEN 'link' THEN
                    IF jsonb_typeof(value -> 'link') <> 'object' OR jsonb_typeof(value -> 'link' -> 'class') <> 'string'
                        OR NOT (value -> 'link' ? 'key') THEN RETURN false; END IF;
                    RETURN floe_is_value(value -> 'link' -> 'key');
                ELSE RETURN floe_is_scalar(value, tag);
                END CASE;
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION floe_refuse(class text, property text, value text, expected text) RETURNS void LANGUAGE plpgsql AS $$
            BEGIN
                RAISE EXCEPTION 'Floe sync: %.% cannot hold %: a device expects %', class, property, coalesce(value, 'NULL'), expected
                    USING ERRCODE = 'check_violation';
            END $$
            """,
            """
            CREATE OR REPLACE FUNCTION floe_log_change(class text, key text, change jsonb, images jsonb) RETURNS void LANGUAGE plpgsql AS $$
            DECLARE
                version bigint;
                seq integer;
            BEGIN
                IF coalesce(current_setting('floe.capture_version', true), '') = '' THEN
                    PERFORM pg_advisory_xact_lock(\(uploadLock));
                    version := nextval('floe_server_version');
                    PERFORM set_config('floe.capture_version', version::text, true);
                    PERFORM set_config('floe.capture_seq', '0', true);
                    PERFORM pg_notify('floe_log', version::text);
                ELSE
                    version := current_setting('floe.capture_version')::bigint;
                END IF;
                seq := current_setting('floe.capture_seq')::integer;
                PERFORM set_config('floe.capture_seq', (seq + 1)::text, true);
                INSERT INTO floe_log (version, seq, class, key, change, images) VALUES (version, seq, class, key, change, images);
            END $$
            """,
        ]
    }

    // Patterns a device's parsers accept (Decimal128(string:), ObjectId(string:), UUID, base64).
    static let decimalPattern = #"^[+-]?((([0-9]+[.]?[0-9]*)|([.][0-9]+))(e[+-]?[0-9]+)?|nan|inf|infinity)$"#
    static let objectIdPattern = "^[0-9a-fA-F]{24}$"
    static let uuidPattern = "^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$"
    static let base64Pattern = "^([A-Za-z0-9+/]{4})*([A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$"

    /// The tag of a scalar kind's sync value.
    static func tag(_ kind: SyncProperty.Kind) -> String {
        switch kind {
        case .float: return "double"
        default: return kind.rawValue
        }
    }

    /// Whether the property is stored as `jsonb` (collections, mixed values, embedded objects).
    static func isJSON(_ property: SyncProperty) -> Bool {
        property.collection != .single || property.kind == .mixed || property.kind == .embedded
    }

    // MARK: Values as sync values

    /// The sync value (`jsonb`) of `column`, a stored value of `property`.
    func json(_ column: String, _ property: SyncProperty) -> String {
        if Self.isJSON(property) {
            switch property.collection {
            case .list, .set: return "coalesce(\(column), '{\"list\": []}'::jsonb)"
            case .map: return "coalesce(\(column), '{\"map\": {}}'::jsonb)"
            case .single: return "coalesce(\(column), 'null'::jsonb)"
            }
        }
        return "CASE WHEN \(column) IS NULL THEN 'null'::jsonb ELSE \(scalarJSON(column, property)) END"
    }

    private func scalarJSON(_ column: String, _ property: SyncProperty) -> String {
        switch property.kind {
        case .uuid: return "jsonb_build_object('uuid', upper(\(column)::text))"
        case .data: return "jsonb_build_object('data', translate(encode(\(column), 'base64'), E'\\n', ''))"
        case .link:
            guard let target = property.target.flatMap({ schema[$0] }), let key = target.property(named: target.primaryKey) else {
                return "jsonb_build_object('string', \(column)::text)"
            }
            return "jsonb_build_object('link', jsonb_build_object('class', \(Self.literal(target.name)), 'key', \(scalarJSON(column, key))))"
        default: return "jsonb_build_object(\(Self.literal(Self.tag(property.kind))), \(column))"
        }
    }

    /// The primary key as the log's `key` column holds it (``Database/text(_:)``).
    func keyText(_ column: String, _ property: SyncProperty) -> String {
        property.kind == .uuid ? "upper(\(column)::text)" : "\(column)::text"
    }

    /// The object in `row` (`NEW`, `OLD`, a record) as the images hold it: every property's sync value.
    func image(_ row: String, _ syncClass: SyncClass) -> String {
        // A function takes at most 100 arguments: 50 properties a call.
        let pairs = syncClass.properties.map { "\(Self.literal($0.name)), \(json("\(row).\(Self.quote($0.name))", $0))" }
        let chunks = stride(from: 0, to: max(pairs.count, 1), by: 50).map { start in
            "jsonb_build_object(" + pairs[start..<min(start + 50, pairs.count)].joined(separator: ", ") + ")"
        }
        return chunks.joined(separator: " || ")
    }

    // MARK: What a device can hold

    /// SQL that holds (TRUE, never NULL) when `column`, a stored value of `property`, is a value
    /// ``SyncProperty/check(_:className:)`` accepts.
    func holds(_ column: String, _ property: SyncProperty) -> String {
        if Self.isJSON(property) {
            // NULL in SQL: an empty collection, or no value (a mixed or embedded property).
            if property.collection == .single { return fits("coalesce(\(column), 'null'::jsonb)", property, depth: 0) }
            return "(\(column) IS NULL OR \(holdsNested(column, property, depth: 0)))"
        }
        let present: String
        switch property.kind {
        case .float, .double, .date:
            present = "\(column) NOT IN ('NaN'::float8, 'Infinity'::float8, '-Infinity'::float8)"
        case .decimal: present = "\(column) ~* \(Self.literal(Self.decimalPattern))"
        case .objectId: present = "\(column) ~ \(Self.literal(Self.objectIdPattern))"
        default: present = "TRUE"
        }
        let nullable = property.isOptional || property.kind == .link
        return "(CASE WHEN \(column) IS NULL THEN \(nullable ? "TRUE" : "FALSE") ELSE coalesce(\(present), false) END)"
    }

    /// SQL that holds when `value` (`jsonb`) is one element (or the single value) of `property`
    /// in sync form, as `SyncProperty.fits` judges a decoded one.
    private func fits(_ value: String, _ property: SyncProperty, depth: Int) -> String {
        let nullable = property.isOptional || property.kind == .mixed || property.kind == .link
            || (property.kind == .embedded && property.collection != .list && property.collection != .set)
        let present: String
        switch property.kind {
        case .mixed: present = "floe_is_value(\(value))"
        case .link:
            guard let target = property.target.flatMap({ schema[$0] }), let key = target.property(named: target.primaryKey) else {
                present = "FALSE"
                break
            }
            present = """
                floe_tag(\(value)) = 'link' AND jsonb_typeof(\(value) -> 'link') = 'object' \
                AND (\(value) -> 'link' ->> 'class') = \(Self.literal(target.name)) AND floe_is_scalar(\(value) -> 'link' -> 'key', \(Self.literal(Self.tag(key.kind))))
                """
        case .embedded:
            // A function for each embedded type: inline, a type that holds itself would expand
            // to every level the schema describes, which PostgreSQL takes seconds to plan.
            present = "\(Self.quote("floe_fits_" + (property.target ?? property.name)))(\(value))"
        default: present = "floe_is_scalar(\(value), \(Self.literal(Self.tag(property.kind))))"
        }
        return "coalesce(CASE WHEN \(value) = 'null'::jsonb THEN \(nullable ? "TRUE" : "FALSE") ELSE (\(present)) END, false)"
    }

    /// Every embedded type the schema's classes hold, at any depth, with its properties (as
    /// first met, nearest the top: the schema cuts a type that holds itself short at its deepest level).
    func embeddedTypes() -> [(name: String, properties: [SyncProperty])] {
        var found: [(name: String, properties: [SyncProperty])] = []
        var seen: Set<String> = []
        var queue = schema.classes.flatMap(\.properties)
        while !queue.isEmpty {
            let property = queue.removeFirst()
            guard property.kind == .embedded else { continue }
            let name = property.target ?? property.name
            if seen.insert(name).inserted { found.append((name, property.properties ?? [])) }
            queue += property.properties ?? []
        }
        return found
    }

    /// The statement that creates (or replaces) the check of one embedded type's sync value (a
    /// `map` of its properties' values, each one it holds).
    func embeddedFunction(_ name: String, properties: [SyncProperty]) -> String {
        let cases = properties.map { nested in "WHEN \(Self.literal(nested.name)) THEN \(holdsNested("e1.v", nested, depth: 2))" }
        let test = cases.isEmpty ? "FALSE" : "CASE e1.k \(cases.joined(separator: " ")) ELSE FALSE END"
        return """
            CREATE OR REPLACE FUNCTION \(Self.quote("floe_fits_" + name))(value jsonb) RETURNS boolean LANGUAGE plpgsql STABLE AS $$
            BEGIN
                RETURN coalesce(floe_tag(value) = 'map' AND jsonb_typeof(value -> 'map') = 'object' AND NOT EXISTS (
                    SELECT 1 FROM jsonb_each(value -> 'map') AS e1(k, v) WHERE NOT (\(test))), false);
            END $$
            """
    }

    /// A value (`jsonb`) of `property` in sync form, collections included: an embedded
    /// object's property, or a collection column that is not NULL.
    private func holdsNested(_ value: String, _ property: SyncProperty, depth: Int) -> String {
        let element = "e\(depth)"
        switch property.collection {
        case .single: return fits(value, property, depth: depth)
        case .list, .set:
            return """
                coalesce(floe_tag(\(value)) = 'list' AND jsonb_typeof(\(value) -> 'list') = 'array' AND NOT EXISTS (
                    SELECT 1 FROM jsonb_array_elements(\(value) -> 'list') AS \(element)(v) WHERE NOT \(fits("\(element).v", property, depth: depth + 1))), false)
                """
        case .map:
            return """
                coalesce(floe_tag(\(value)) = 'map' AND jsonb_typeof(\(value) -> 'map') = 'object' AND NOT EXISTS (
                    SELECT 1 FROM jsonb_each(\(value) -> 'map') AS \(element)(k, v) WHERE NOT \(fits("\(element).v", property, depth: depth + 1))), false)
                """
        }
    }

    // MARK: Triggers

    /// The statements that create (or replace) the class's trigger functions.
    func functions(for syncClass: SyncClass) -> [String] {
        guard let keyProperty = syncClass.property(named: syncClass.primaryKey) else { return [] }
        let className = Self.literal(syncClass.name)
        let key = Self.quote(syncClass.primaryKey)
        let checks = syncClass.properties.map { property in
            let column = "NEW.\(Self.quote(property.name))"
            return """
                    IF NOT \(holds(column, property)) THEN
                        PERFORM floe_refuse(\(className), \(Self.literal(property.name)), left(\(column)::text, 200), \(Self.literal(property.typeName)));
                    END IF;
            """
        }.joined(separator: "\n")
        let change = { (operation: String, keyJSON: String, values: String) in
            "jsonb_build_object('className', \(className), 'key', \(keyJSON), 'operation', '\(operation)', 'values', \(values))"
        }
        let oldKey = json("OLD.\(key)", keyProperty), newKey = json("NEW.\(key)", keyProperty)
        let oldKeyText = keyText("OLD.\(key)", keyProperty), newKeyText = keyText("NEW.\(key)", keyProperty)
        let row = """
            CREATE OR REPLACE FUNCTION \(Self.quote("floe_capture_row_" + syncClass.name))() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                old_image jsonb;
                new_image jsonb;
                changed jsonb;
            BEGIN
                IF TG_OP <> 'DELETE' THEN
            \(checks)
                    new_image := \(image("NEW", syncClass));
                END IF;
                IF TG_OP <> 'INSERT' THEN
                    old_image := \(image("OLD", syncClass));
                END IF;
                IF TG_OP = 'INSERT' THEN
                    PERFORM floe_log_change(\(className), \(newKeyText), \(change("insert", newKey, "new_image")), NULL);
                ELSIF TG_OP = 'DELETE' THEN
                    PERFORM floe_log_change(\(className), \(oldKeyText), \(change("delete", oldKey, "'{}'::jsonb")), jsonb_build_object('before', old_image));
                ELSIF OLD.\(key) IS DISTINCT FROM NEW.\(key) THEN
                    PERFORM floe_log_change(\(className), \(oldKeyText), \(change("delete", oldKey, "'{}'::jsonb")), jsonb_build_object('before', old_image));
                    PERFORM floe_log_change(\(className), \(newKeyText), \(change("insert", newKey, "new_image")), NULL);
                ELSE
                    SELECT coalesce(jsonb_object_agg(a.key, a.value), '{}'::jsonb) INTO changed
                        FROM jsonb_each(new_image) AS a WHERE (old_image -> a.key) IS DISTINCT FROM a.value;
                    IF changed <> '{}'::jsonb THEN
                        PERFORM floe_log_change(\(className), \(newKeyText), \(change("update", newKey, "changed")), jsonb_build_object('before', old_image, 'after', new_image));
                    END IF;
                END IF;
                RETURN NULL;
            END $$
            """
        let statement = """
            CREATE OR REPLACE FUNCTION \(Self.quote("floe_capture_statement_" + syncClass.name))() RETURNS trigger LANGUAGE plpgsql AS $$
            DECLARE
                gone record;
            BEGIN
                PERFORM pg_advisory_xact_lock(\(Self.uploadLock));
                IF TG_OP = 'TRUNCATE' THEN
                    FOR gone IN SELECT * FROM \(Self.quote(syncClass.name)) LOOP
                        PERFORM floe_log_change(\(className), \(keyText("gone.\(key)", keyProperty)), \(change("delete", json("gone.\(key)", keyProperty), "'{}'::jsonb")),
                            jsonb_build_object('before', \(image("gone", syncClass))));
                    END LOOP;
                END IF;
                RETURN NULL;
            END $$
            """
        return [row, statement]
    }

    /// The statements that create the class's triggers (run only where they are missing).
    func triggers(for syncClass: SyncClass) -> (row: String, statement: String) {
        let table = Self.quote(syncClass.name)
        return (
            row: """
                CREATE TRIGGER floe_capture_row AFTER INSERT OR UPDATE OR DELETE ON \(table) FOR EACH ROW
                WHEN (\(Self.skipOwnWrites)) EXECUTE FUNCTION \(Self.quote("floe_capture_row_" + syncClass.name))()
                """,
            statement: """
                CREATE TRIGGER floe_capture_statement BEFORE INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(table) FOR EACH STATEMENT
                WHEN (\(Self.skipOwnWrites)) EXECUTE FUNCTION \(Self.quote("floe_capture_statement_" + syncClass.name))()
                """
        )
    }
}
