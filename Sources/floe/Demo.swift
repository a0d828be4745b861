import Foundation
@_spi(Engine) import Floe

/// `floe demo`: a short tour that opens `default.floe` in the current directory, writes,
/// queries, freezes a snapshot, reads it from other tasks and streams changes.
enum Demo {
    static let dogSpec = TableSpec(name: "Dog", columns: [
        ColumnSpec(name: "name", type: .string),
        ColumnSpec(name: "age", type: .int),
        ColumnSpec(name: "color", type: .string),
        ColumnSpec(name: "toys", type: .string, collection: .list),
    ])

    static func run(directory: String) async throws {
        let path = directory + "/default.floe"
        let store = try Store.open(path: path)
        defer { store.close() }
        print("opened \(path) at version \(store.currentVersion)")

        // A slow consumer gets the newest version, never a growing buffer: stop at the last commit below.
        let changes = store.versions()
        let lastVersion = store.currentVersion + 2
        let watcher = Task {
            var seen: [UInt64] = []
            for await version in changes {
                seen.append(version)
                if version >= lastVersion { break }
            }
            return seen
        }

        // Write: create the table on first run, then add five dogs.
        let transaction = try store.beginWrite()
        let dogs = try transaction.tableIfPresent(named: "Dog") ?? transaction.createTable(dogSpec)
        let colors = ["red", "brown", "black", "white", "grey"]
        let start = try transaction.objectCount(in: dogs)
        for index in 0..<5 {
            let key = try transaction.insertObject(into: dogs, values: [
                .string("dog\(start + index)"), .int(Int64((start + index) * 3 % 15)), .string(colors[index]), .null,
            ])
            try transaction.listAppend(.string("ball"), in: dogs, key: key, column: 3)
        }
        let version = try transaction.commit()
        print("wrote 5 dogs in version \(version); the table now holds \(start + 5)")

        // Query: dogs older than 6, by scanning the age column of the newest snapshot.
        let snapshot = try store.snapshot()
        var older: [String] = []
        try snapshot.forEachValue(in: dogs, column: 1) { key, age throws(FloeError) in
            if case .int(let years) = age, years > 6, case .string(let name) = try snapshot.value(in: dogs, key: key, column: 0) {
                older.append(name)
            }
            return true
        }
        print("query age > 6: \(older.count) dogs (\(older.prefix(5).joined(separator: ", "))\(older.count > 5 ? ", …" : ""))")

        // Freeze: the snapshot is Sendable and never changes; read it from other tasks while writing.
        let frozenCount = try snapshot.objectCount(in: dogs)
        async let seenFromTask = Task.detached { try snapshot.objectCount(in: dogs) }.value
        let more = try store.beginWrite()
        try more.setValue(.string("renamed"), in: dogs, key: 0, column: 0)
        try more.insertObject(into: dogs, values: [.string("late dog"), .int(1), .string("grey"), .null])
        try more.commit()
        let fromTask = try await seenFromTask
        print("frozen snapshot of version \(snapshot.version): \(frozenCount) dogs, read from another task: \(fromTask); newest version \(store.currentVersion) holds \(try store.snapshot().objectCount(in: dogs))")

        // Stream: the watcher saw both commits.
        let streamed = await watcher.value
        print("change stream delivered version\(streamed.count == 1 ? "" : "s") \(streamed.map(String.init).joined(separator: ", "))\(streamed.count == 1 ? " (the earlier commit coalesced into it)" : "")")

        let report = try store.verify()
        print("verified \(report.commits) commits, \(report.nodes) nodes: \(report.isValid ? "ok" : "\(report.problems.count) problem(s)")")
    }
}
