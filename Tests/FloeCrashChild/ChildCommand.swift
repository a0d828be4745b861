@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The modes of the crash child, chosen by the first argument:
///
/// - `run <path> <seed> [<max commits> [every=N|auto=BYTES]]`: opens the file with durability `.full`, prints
///   `READY <version>`, then commits the workload named by the seed, printing `ACK <version>`
///   after each commit returns, until killed (or after the given number of commits).
/// - `group <path> <writers>`: concurrent awaited realm writes sharing syncs; see ``GroupCommitChild``.
/// - `compact <path>`: opens the file, compacts it, prints `COMPACTED <version>` and exits.
/// - `hold-lock <path>`: opens the file, prints `READY` and waits to be killed, holding the lock.
/// - `open <path> [read-only]`: opens the file, reads everything and verifies it, printing
///   `VERSION <version>`, `STATE <digest>` (see ``WorkloadState/digest``) and
///   `VERIFY valid|invalid`, or `ERROR <description>` for the first `FloeError`. It exits 0
///   either way: tests use it for damaged files whose opening might stop the process, which
///   must not take the test runner down with it.
///
/// A child whose parent is gone exits on its own, so an aborted test leaves nothing running.
enum ChildCommand {
    static func main(_ arguments: [String]) -> Int32 {
        let parent = getppid()
        switch arguments.dropFirst().first {
        case "run":
            guard arguments.count >= 4, let seed = UInt64(arguments[3]) else { return usage() }
            let limit = arguments.count >= 5 ? UInt64(arguments[4]) ?? .max : .max
            let compaction = arguments.count >= 6 ? Compaction(arguments[5]) : Compaction.none
            return report { () throws(FloeError) in
                try run(path: arguments[2], seed: seed, limit: limit, compaction: compaction, parent: parent)
            }
        case "group":
            guard arguments.count >= 4, let writers = Int(arguments[3]), writers > 0 else { return usage() }
            return GroupCommitChild.run(path: arguments[2], writers: writers, parent: parent)
        case "compact":
            guard arguments.count >= 3 else { return usage() }
            return report { () throws(FloeError) in
                let store = try Store.open(path: arguments[2], options: StoreOptions(durability: .full))
                try store.compact()
                say("COMPACTED \(store.currentVersion)")
                store.close()
            }
        case "hold-lock":
            guard arguments.count >= 3 else { return usage() }
            return report { () throws(FloeError) in try holdLock(path: arguments[2], parent: parent) }
        case "open":
            guard arguments.count >= 3 else { return usage() }
            openAndRead(path: arguments[2], readOnly: arguments.count >= 4 && arguments[3] == "read-only")
            return 0
        default:
            return usage()
        }
    }

    /// How the writer compacts: never, explicitly every N commits (`every=N`), or automatically
    /// once the file passes N bytes (`auto=N`), so that kills land inside compactions too.
    enum Compaction {
        case none
        case every(UInt64)
        case automatic(overBytes: UInt64)

        init(_ argument: String) {
            let parts = argument.split(separator: "=")
            let number = parts.count == 2 ? UInt64(parts[1]) : nil
            switch (parts.first, number) {
            case ("every"?, let count?) where count > 0: self = .every(count)
            case ("auto"?, let bytes?): self = .automatic(overBytes: bytes)
            default: self = .none
            }
        }
    }

    private static func run(path: String, seed: UInt64, limit: UInt64, compaction: Compaction, parent: pid_t) throws(FloeError) {
        var options = StoreOptions(durability: .full, compactsAutomatically: false)
        if case .automatic(let bytes) = compaction {
            options.compactsAutomatically = true
            options.automaticCompactionMinimumSize = bytes
        }
        let store = try Store.open(path: path, options: options)
        var state = try WorkloadState.load(from: store.snapshot())
        var version = store.currentVersion
        say("READY \(version)")
        var done: UInt64 = 0
        while done < limit && getppid() == parent {
            let transaction = try store.beginWrite()
            for operation in Workload.plan(seed: seed, version: version + 1, state: state, profile: .crash) {
                state.apply(operation, assignedKey: try operation.perform(in: transaction))
            }
            let committed = try transaction.commit()
            guard committed == version + 1 else {
                fail("commit returned version \(committed) after version \(version)")
            }
            version = committed
            done += 1
            say("ACK \(version)")
            if case .every(let count) = compaction, version % count == 0 { try store.compact() }
        }
        store.close()
    }

    private static func holdLock(path: String, parent: pid_t) throws(FloeError) {
        let store = try Store.open(path: path)
        say("READY")
        // At most a minute, in case nobody kills it.
        var waited = 0
        while waited < 6000 && getppid() == parent {
            usleep(10_000)
            waited += 1
        }
        store.close()
    }

    private static func openAndRead(path: String, readOnly: Bool) {
        do {
            let store = try Store.open(path: path, options: StoreOptions(readOnly: readOnly, compactsAutomatically: false))
            let snapshot = try store.snapshot()
            say("VERSION \(snapshot.version)")
            say("STATE \(try WorkloadState.load(from: snapshot).digest)")
            say("VERIFY \(try store.verify().isValid ? "valid" : "invalid")")
            store.close()
        } catch {
            say("ERROR \(error)")
        }
    }

    /// Writes one line to standard output with a single unbuffered write.
    static func say(_ line: String, to descriptor: Int32 = STDOUT_FILENO) {
        let bytes = Array((line + "\n").utf8)
        var written = 0
        while written < bytes.count {
            let result = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress! + written, bytes.count - written) }
            if result < 0 {
                if errno == EINTR { continue }
                exit(5)
            }
            written += result
        }
    }

    static func fail(_ message: String) -> Never {
        say("FloeCrashChild: \(message)", to: STDERR_FILENO)
        exit(4)
    }

    private static func report(_ body: () throws(FloeError) -> Void) -> Int32 {
        do {
            try body()
            return 0
        } catch {
            say("FloeCrashChild: \(error)", to: STDERR_FILENO)
            return 3
        }
    }

    private static func usage() -> Int32 {
        say("usage: FloeCrashChild run <path> <seed> [<max commits>] | group <path> <writers> | compact <path> | hold-lock <path> | open <path> [read-only]", to: STDERR_FILENO)
        return 2
    }
}
