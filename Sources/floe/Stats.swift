import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// `floe schema` and `floe stats`: what a file holds, from its stored schema and its commits.
enum Stats {
    static func schema(path: String) throws {
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        let snapshot = try store.snapshot()
        let names = try snapshot.tableNames()
        // The version the application's migrations bring the file to (`Realm.Configuration.schemaVersion`).
        print("schema version: \(snapshot.schemaVersion)")
        if names.isEmpty { print("\(path) has no classes") }
        for name in names {
            let spec = try snapshot.spec(of: try snapshot.table(named: name))
            print("class \(name)\(spec.kind == .topLevel ? "" : " (\(spec.kind))")")
            for column in spec.columns {
                print("  \(column.name): \(Inspect.describe(column))")
            }
        }
    }

    static func stats(path: String) throws {
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        let snapshot = try store.snapshot()
        // The commit records are counted by the verifier's walk of the file, which also
        // proves the counts below come from intact data.
        let report = try store.verify()
        let size = store.fileSize, dead = store.deadBytes
        print("version: \(snapshot.version)")
        print("commits held: \(report.commits)")
        print("committed bytes: \(size)")
        print("live bytes: \(size - min(dead, size)) (the newest version and the commit framing)")
        print("dead bytes: \(dead) (older versions; compact reclaims them)")
        let names = try snapshot.tableNames()
        print("classes: \(names.count)")
        for name in names {
            print("  \(name): \(try snapshot.objectCount(in: try snapshot.table(named: name))) objects")
        }
        if !report.isValid { print("problems: \(report.problems.count) (run floe verify)") }
    }
}
