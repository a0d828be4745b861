import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// `floe inspect`: what a file holds, without reading its objects: its version, the schema
/// version the application last stored (`Realm.Configuration.schemaVersion`), its size, and
/// each class with its object count and properties.
enum Inspect {
    static func run(path: String) throws {
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        let snapshot = try store.snapshot()
        print("file: \(path)")
        print("version: \(snapshot.version)")
        print("schema version: \(snapshot.schemaVersion)")
        // The size is the file's committed bytes: the newest version's nodes, older versions'
        // (dead: compaction reclaims them), and the commit framing.
        print("size: \(store.fileSize) bytes committed, \(store.deadBytes) of them no longer used by the newest version (compact reclaims them)")
        for note in TailNotes.describe(store) { print("note: \(note)") }
        for name in try snapshot.tableNames() {
            let table = try snapshot.table(named: name)
            let spec = try snapshot.spec(of: table)
            print("\nclass \(name) (\(spec.kind)): \(try snapshot.objectCount(in: table)) objects")
            for column in spec.columns {
                print("  \(column.name): \(describe(column))")
            }
        }
    }

    static func describe(_ column: ColumnSpec) -> String {
        var type = column.type == .link ? "link → \(column.linkTarget ?? "?")" : "\(column.type)"
        if column.type == .int && column.integerBits != 64 { type += "\(column.integerBits)" }
        if column.isNullable { type += "?" }
        switch column.collection {
        case .single: break
        case .list: type = "list<\(type)>"
        case .set: type = "set<\(type)>"
        case .map: type = "map<string, \(type)>"
        }
        var flags: [String] = []
        if column.isPrimaryKey { flags.append("primary key") }
        if column.isIndexed { flags.append("indexed") }
        return flags.isEmpty ? type : "\(type) [\(flags.joined(separator: ", "))]"
    }
}

/// What `inspect` and `verify` say about the bytes after a file's last commit.
enum TailNotes {
    static func describe(_ store: Store) -> [String] {
        let zeros = store.recoveredZeroBytes
        let torn = store.recoveredTailBytes - zeros
        var notes: [String] = []
        if torn > 0 {
            notes.append("\(torn) bytes after the last valid commit were ignored (a commit cut short by a crash, "
                         + "never acknowledged; the next read-write open cuts them off)")
        }
        if zeros > 0 {
            notes.append("\(zeros) bytes of zeros end the file: space the writer reserved ahead of its commits and "
                         + "did not trim (it stopped without closing the file); not data, the next read-write open cuts them off")
        }
        return notes
    }
}
