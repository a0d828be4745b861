import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// `floe watch`: follows a file another process writes and prints one line per commit.
///
/// A read-only store sees another process's commits when it refreshes; each new version is
/// compared with the one before (the change feed's own diff), so a commit that touched no
/// object of the watched class prints nothing.
enum Watch {
    static func run(path: String, className: String?) throws -> Never {
        // Interrupting or terminating is how watch ends: make sure neither signal is ignored
        // or blocked by whatever started the tool.
        var stopping = sigset_t()
        sigemptyset(&stopping)
        for signal in [SIGINT, SIGTERM] {
            Foundation.signal(signal, SIG_DFL)
            sigaddset(&stopping, signal)
        }
        sigprocmask(SIG_UNBLOCK, &stopping, nil)
        let store = try Store.open(path: path, options: StoreOptions(readOnly: true))
        var previous = try store.snapshot()
        if let className, try previous.tableIfPresent(named: className) == nil {
            let names = try previous.tableNames()
            emit("watching \(path) at version \(previous.version) (no \(className) objects yet; it has \(names.isEmpty ? "no classes" : names.joined(separator: ", ")))")
        } else {
            emit("watching \(path) at version \(previous.version)")
        }
        while true {
            if try store.refresh() {
                let current = try store.snapshot()
                var changes = try VersionDiff.changes(from: previous.group, to: current.group)
                if let className { changes = changes.restricted(to: [className]) }
                if let line = describe(changes, version: current.version) { emit(line) }
                previous = current
            }
            Thread.sleep(forTimeInterval: 0.05)
        }
    }

    /// Writes a line straight to standard output, so a pipe sees it at once (print's buffer
    /// would hold it until it fills, and watch runs until it is stopped).
    static func emit(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }

    /// "version 7: Dog +2 -1 ~3" (inserted, deleted, modified), nil when nothing changed.
    static func describe(_ changes: ChangeSet, version: UInt64) -> String? {
        let parts = changes.tables.sorted { $0.key < $1.key }.compactMap { name, table -> String? in
            guard !table.isEmpty else { return nil }
            var counts = ["+\(table.inserted.count)", "-\(table.deleted.count)", "~\(table.modified.count)"]
            if table.structureChanged { counts.append("(schema changed)") }
            return "\(name) " + counts.joined(separator: " ")
        }
        return parts.isEmpty ? nil : "version \(version): " + parts.joined(separator: ", ")
    }
}
