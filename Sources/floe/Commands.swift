import Foundation
import Synchronization

/// One command of the tool: its operands, its flags and its help. The table below drives the
/// argument parsing, the usage errors and `floe <command> --help`.
struct CommandSpec {
    let name: String
    /// Operand names as the usage shows them; optional ones in brackets.
    let operands: [String]
    let minimum: Int
    /// What the operands are, for usage errors ("a file path").
    let needs: String
    /// Flags: name (without `--`) and the name of its value (nil: a switch).
    var flags: [(name: String, value: String?)] = []
    let summary: String
    let help: String

    var synopsis: String {
        ([name] + operands + flags.map { "[--\($0.name)\($0.value.map { " \($0)" } ?? "")]" }).joined(separator: " ")
    }
}

let commandSpecs: [CommandSpec] = [
    CommandSpec(name: "demo", operands: [], minimum: 0, needs: "", summary: "open default.floe here: write, query, freeze, stream commits, verify",
                help: "Creates or opens default.floe in the current directory and tours the API: writes five dogs, queries, freezes a snapshot, streams the commits and verifies the file."),
    CommandSpec(name: "schema", operands: ["<file>"], minimum: 1, needs: "a file path", summary: "the schema version, the classes and their properties",
                help: "Prints the stored schema version (the one the application's Realm.Configuration.schemaVersion last brought the file to), then each stored class with its properties: type, optionality, collection kind, link target, primary key and index."),
    CommandSpec(name: "stats", operands: ["<file>"], minimum: 1, needs: "a file path", summary: "versions, live and dead bytes, classes and object counts, commit history",
                help: "Prints the newest version, the committed size split into live bytes (the newest version) and dead bytes (older versions, reclaimed by compact), the object count of each class and how many commits the file holds."),
    CommandSpec(name: "inspect", operands: ["<file>"], minimum: 1, needs: "a file path", summary: "schema, object counts, version, schema version and size",
                help: "Prints the version, the stored schema version, the size, and each class with its object count and properties."),
    CommandSpec(name: "dump", operands: ["<file>", "[class]"], minimum: 1, needs: "a file path (and optionally a class name)",
                flags: [("jsonl", nil)], summary: "objects as JSON (one class or all)",
                help: "Prints the objects as one JSON document keyed by class, or with --jsonl one JSON object per line (with \"_class\" and \"_key\"). Links are written as the linked object's primary key (its object key when its class has none); embedded objects in full, inside the object that owns them (an embedded class has no lines of its own). Values are written as import reads them back: dates as ISO 8601 UTC text (\"2024-05-01T12:30:00.25Z\"), Decimal128 as decimal text (\"12.5\"), binary data as base64, ObjectIds as 24 hex digits, UUIDs as UUID strings, NaN and the infinities as \"NaN\", \"Infinity\" and \"-Infinity\"; inside a mixed value those types are tagged ({\"$date\": ...}, {\"$decimal128\": ...}, {\"$objectId\": ...}, {\"$uuid\": ...}, {\"$data\": ...}, {\"$float\": ...}, {\"$double\": ...}) and a link is {\"_class\": ..., \"key\": ...}. Nothing is printed on standard output when reading fails part way."),
    CommandSpec(name: "query", operands: ["<file>", "<class>", "<predicate>"], minimum: 3, needs: "a file path, a class name and a predicate",
                flags: [("sort", "key"), ("descending", nil), ("limit", "n")], summary: "objects matching a predicate, as JSON lines",
                help: "Prints the objects of <class> that match <predicate> (the string predicate dialect of Results.filter, e.g. \"age > 3 AND name BEGINSWITH 'R'\"), one JSON object per line; --sort orders by a property (--descending reverses), --limit keeps the first n. Key paths that follow links are not available here: the tool knows the file's stored schema, not its model classes."),
    CommandSpec(name: "verify", operands: ["<file>"], minimum: 1, needs: "a file path", summary: "check every checksum, tree rule and the object graph; exit 1 on a problem",
                help: "Reads every commit record and node of the file, checks each checksum and the rules of the newest version's trees, and its object graph: every link leads to an object that exists and is listed in its backlinks, every index files each object under its value, every embedded object has exactly one owner, and every list, set and map belongs to one object. Prints a report naming each problem by class, object key and property. Exits 1 when a problem is found."),
    CommandSpec(name: "compact", operands: ["<file>"], minimum: 1, needs: "a file path", summary: "rewrite the file with only its newest version",
                help: "Rewrites the file in place with only its newest version, reclaiming the bytes of older versions."),
    CommandSpec(name: "copy", operands: ["<file>", "<out>"], minimum: 2, needs: "a file path and a path for the copy", summary: "write a compact copy of the newest version to a new file",
                help: "Writes the newest version of <file> to <out> (which must not exist), compacted. The source is opened read-only."),
    CommandSpec(name: "import", operands: ["<file>", "<class>", "<data.jsonl>"], minimum: 3, needs: "a file path, a class name and a JSON lines file",
                summary: "add objects from JSON lines to a class, all or none",
                help: "Adds one object of <class> per line of <data.jsonl> (a JSON object with the class's property names; \"_key\" and \"_class\" as dump writes them are accepted). Links are given as the linked object's primary key (one an earlier line imported will do); an embedded object as a JSON object of its properties ({\"address\": {\"city\": \"Rome\"}}), created for its owner alone: never by key, and an embedded class takes no lines of its own. Values are read in the forms dump writes them (a decimal also as a JSON number such as 12.5). A line that does not fit the stored schema is an error naming the line, the property and the value, and nothing is written: the file is left exactly as it was."),
    CommandSpec(name: "recover", operands: ["<file>", "<out>"], minimum: 2, needs: "a damaged file's path and a path for the recovered copy",
                summary: "copy the newest intact version of a damaged file into a new file",
                help: "Finds the newest version of <file> whose commit and nodes are intact and writes it to <out>, listing what was skipped."),
    CommandSpec(name: "watch", operands: ["<file>", "[class]"], minimum: 1, needs: "a file path (and optionally a class name)",
                summary: "print each commit another process makes, until interrupted",
                help: "Follows the file read-only and prints one line per commit another process makes: its version and, per class, the objects inserted, deleted and modified (only <class> when given). Runs until interrupted."),
]

let usage = """
usage: floe <command> [arguments]      floe <command> --help

commands:
\(commandSpecs.map { "  " + $0.synopsis.padding(toLength: max(38, $0.synopsis.count), withPad: " ", startingAt: 0) + "  " + $0.summary }.joined(separator: "\n"))

exit status: 0 done, 1 the file could not be read, did not verify or the input was refused,
2 wrong usage (unknown command, missing or extra arguments, unknown flag).
"""

/// A command line split into operands and flags by the command's spec.
struct ParsedArguments {
    var operands: [String] = []
    var flags: [String: String] = [:]

    func has(_ flag: String) -> Bool { flags[flag] != nil }
}

/// Says what was wrong, then how to use the tool, and exits with status 2.
func usageError(_ problem: String) -> Never {
    FileHandle.standardError.write(Data("floe: \(problem)\n\n\(usage)\n".utf8))
    exit(2)
}

/// Splits `arguments` by `spec`; `--help` prints the command's help and exits 0, anything
/// that does not fit is a usage error (exit 2).
func parse(_ arguments: [String], for spec: CommandSpec) -> ParsedArguments {
    var parsed = ParsedArguments()
    var index = 0
    while index < arguments.count {
        let argument = arguments[index]
        index += 1
        guard argument.hasPrefix("--"), argument.count > 2 else {
            parsed.operands.append(argument)
            continue
        }
        let name = String(argument.dropFirst(2))
        if name == "help" {
            print("usage: floe \(spec.synopsis)\n\n\(spec.help)\n\nexit status: 0 done, 1 the file could not be read or the input was refused, 2 wrong usage.")
            exit(0)
        }
        guard let flag = spec.flags.first(where: { $0.name == name }) else {
            usageError("'\(spec.name)' has no option --\(name)")
        }
        if let value = flag.value {
            guard index < arguments.count else { usageError("--\(name) needs a \(value)") }
            parsed.flags[name] = arguments[index]
            index += 1
        } else {
            parsed.flags[name] = ""
        }
    }
    if parsed.operands.count < spec.minimum {
        usageError("'\(spec.name)' needs \(spec.needs)")
    }
    if parsed.operands.count > spec.operands.count {
        usageError("'\(spec.name)' takes \(spec.needs), not \(parsed.operands.count) arguments")
    }
    return parsed
}

/// Commands that read a file refuse a missing path rather than create an empty file there.
func requireFile(_ path: String) {
    guard FileManager.default.fileExists(atPath: path) else {
        FileHandle.standardError.write(Data("floe: there is no file at \(path)\n".utf8))
        exit(1)
    }
}

/// A progress line on standard error for operations that take more than a second
/// (`FLOE_PROGRESS_AFTER` sets another threshold in seconds), rewritten in place at most
/// five times a second and cleared at the end.
final class Progress {
    private let start = Date()
    private var lastPrint = Date.distantPast
    private var printed = false
    private let threshold = ProcessInfo.processInfo.environment["FLOE_PROGRESS_AFTER"].flatMap(Double.init) ?? 1
    let what: String

    init(_ what: String) { self.what = what }

    func update(_ done: Int, of total: Int) {
        let now = Date()
        guard now.timeIntervalSince(start) >= threshold, now.timeIntervalSince(lastPrint) >= 0.2 || done == total else { return }
        lastPrint = now
        printed = true
        FileHandle.standardError.write(Data("\r\(what): \(done)/\(total)".utf8))
    }

    func finish() {
        if printed { FileHandle.standardError.write(Data("\n".utf8)) }
    }
}

/// Runs `work` with a progress line for operations whose total is not known in advance
/// (verify, compact, copy, recover, stats): past the threshold (1 s; `FLOE_PROGRESS_AFTER`
/// sets it) standard error shows the seconds spent so far, rewritten twice a second, and at
/// the end how long the operation took.
func withElapsedProgress<T>(_ what: String, _ work: () throws -> T) rethrows -> T {
    let line = ElapsedLine(what)
    let timer = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "floe.progress"))
    timer.schedule(deadline: .now() + line.threshold, repeating: 0.5)
    timer.setEventHandler { line.tick() }
    timer.resume()
    defer {
        timer.cancel()
        line.finish()
    }
    return try work()
}

/// The line `withElapsedProgress` keeps on standard error; the lock keeps a late tick from
/// writing after the final line.
final class ElapsedLine: Sendable {
    let what: String
    let threshold = ProcessInfo.processInfo.environment["FLOE_PROGRESS_AFTER"].flatMap(Double.init) ?? 1
    private let start = ContinuousClock.now
    private let state = Mutex((shown: false, finished: false))

    init(_ what: String) { self.what = what }

    private var seconds: Double {
        let elapsed = ContinuousClock.now - start
        return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    }

    func tick() {
        state.withLock { state in
            guard !state.finished else { return }
            state.shown = true
            FileHandle.standardError.write(Data("\r\(what): \(Int(seconds)) s".utf8))
        }
    }

    func finish() {
        state.withLock { state in
            let elapsed = seconds
            if state.shown || elapsed >= threshold {
                FileHandle.standardError.write(Data("\r\(what): done in \(String(format: "%.1f", elapsed)) s\n".utf8))
            }
            state.finished = true
        }
    }
}

