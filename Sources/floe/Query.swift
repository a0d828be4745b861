import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// `floe query`: the objects of one class that match a string predicate, as JSON lines.
/// Like `dump`, everything is rendered before anything is printed.
enum Query {
    static func run(path: String, className: String, predicate: String, sortKey: String?, descending: Bool, limit: Int?) throws {
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        defer { store.close() }
        let snapshot = try store.snapshot()
        guard try snapshot.tableIfPresent(named: className) != nil else {
            let names = try snapshot.tableNames()
            throw Dump.DumpError("\(path) has no class named '\(className)' (it has \(names.isEmpty ? "none" : names.joined(separator: ", ")))")
        }
        var keys = try StoredTableQuery.matchingKeys(in: className, of: snapshot, where: predicate, sortedBy: sortKey, ascending: !descending)
        if let limit { keys = Array(keys.prefix(limit)) }
        let table = try snapshot.table(named: className)
        let renderer = ObjectRenderer(snapshot: snapshot)
        let progress = Progress("rendering \(className)")
        var lines: [String] = []
        for (index, key) in keys.enumerated() {
            lines.append(try renderer.render(key, in: table, withClass: false))
            progress.update(index + 1, of: keys.count)
        }
        progress.finish()
        if !lines.isEmpty { print(lines.joined(separator: "\n")) }
    }
}
