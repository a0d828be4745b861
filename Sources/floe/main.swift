import Foundation
@_spi(Engine) import Floe

// The `floe` command: a demo, and tools to inspect, dump, verify, compact and recover a file.

let usage = """
usage: floe <command> [arguments]

commands:
  demo                    open default.floe here: write, query, freeze, stream commits, verify
  inspect <file>          schema, object counts, version and size
  dump <file> [class]     objects as JSON (one class or all)
  verify <file>           check every checksum and tree rule; exit 1 on a problem
  compact <file>          rewrite the file with only its newest version
  recover <file> <out>    copy the newest intact version of a damaged file into a new file

exit status: 0 done, 1 the file could not be read or did not verify, 2 wrong usage.
"""

/// The arguments each command takes, for the usage errors: (command, minimum, maximum, what).
let commands: [String: (minimum: Int, maximum: Int, needs: String)] = [
    "demo": (0, 0, ""),
    "inspect": (1, 1, "a file path"),
    "dump": (1, 2, "a file path (and optionally a class name)"),
    "verify": (1, 1, "a file path"),
    "compact": (1, 1, "a file path"),
    "recover": (2, 2, "a damaged file's path and a path for the recovered copy"),
]

/// Says what was wrong, then how to use the tool, and exits with status 2.
func usageError(_ problem: String) -> Never {
    FileHandle.standardError.write(Data("floe: \(problem)\n\n\(usage)\n".utf8))
    exit(2)
}

/// Commands that read a file refuse a missing path rather than create an empty file there.
func requireFile(_ path: String) {
    guard FileManager.default.fileExists(atPath: path) else {
        FileHandle.standardError.write(Data("floe: there is no file at \(path)\n".utf8))
        exit(1)
    }
}

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { usageError("no command given") }
if ["help", "--help", "-h"].contains(command) {
    print(usage)
    exit(0)
}
guard let shape = commands[command] else { usageError("unknown command '\(command)'") }
let operands = Array(arguments.dropFirst())
if operands.count < shape.minimum || operands.count > shape.maximum {
    usageError(operands.count < shape.minimum ? "'\(command)' needs \(shape.needs)"
                                               : "'\(command)' takes \(shape.needs), not \(operands.count) arguments")
}
if command != "demo" { requireFile(operands[0]) }
do {
    switch command {
    case "demo":
        try await Demo.run(directory: FileManager.default.currentDirectoryPath)
    case "inspect":
        try Inspect.run(path: operands[0])
    case "dump":
        try Dump.run(path: operands[0], className: operands.count == 2 ? operands[1] : nil)
    case "verify":
        let store = try Store.open(path: operands[0], options: StoreOptions(readOnly: true))
        let report = try store.verify()
        let ignored = store.recoveredTailBytes
        store.close()
        print(report)
        if ignored > 0 {
            print("note: \(ignored) bytes after the last valid commit were ignored (a commit cut short by a crash, "
                  + "never acknowledged; the next read-write open cuts them off)")
        }
        if !report.isValid { exit(1) }
    case "compact":
        let store = try Store.open(path: operands[0])
        let before = store.fileSize
        try store.compact()
        print("compacted \(operands[0]): \(before) → \(store.fileSize) bytes")
        store.close()
    case "recover":
        let outcome = try Store.recover(path: operands[0], to: operands[1])
        print("\(outcome) into \(operands[1])")
        for reason in outcome.skipped { print("  skipped \(reason)") }
    default:
        usageError("unknown command '\(command)'")
    }
} catch {
    FileHandle.standardError.write(Data("floe: \(error)\n".utf8))
    exit(1)
}
