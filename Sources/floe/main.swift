import Foundation
@_spi(Engine) import Floe

// The `floe` command: a demo, and tools to inspect, dump, verify, compact and recover a file.

let usage = """
usage: floe <command> [arguments]

commands:
  demo                    open default.floe here: write, query, freeze, stream commits
  inspect <file>          schema, object counts, version and size
  dump <file> [table]     objects as JSON (one table or all)
  verify <file>           check every checksum and tree rule; exit 1 on a problem
  compact <file>          rewrite the file with only its newest version
  recover <file> <out>    copy the newest intact version of a damaged file into a new file
"""

let arguments = Array(CommandLine.arguments.dropFirst())
do {
    switch arguments.first {
    case "demo":
        try await Demo.run(directory: FileManager.default.currentDirectoryPath)
    case "inspect" where arguments.count == 2:
        try Inspect.run(path: arguments[1])
    case "dump" where arguments.count == 2 || arguments.count == 3:
        try Dump.run(path: arguments[1], table: arguments.count == 3 ? arguments[2] : nil)
    case "verify" where arguments.count == 2:
        let report = try Store.verify(path: arguments[1])
        print(report)
        if !report.isValid { exit(1) }
    case "compact" where arguments.count == 2:
        let store = try Store.open(path: arguments[1])
        let before = store.fileSize
        try store.compact()
        print("compacted \(arguments[1]): \(before) → \(store.fileSize) bytes")
        store.close()
    case "recover" where arguments.count == 3:
        let outcome = try Store.recover(path: arguments[1], to: arguments[2])
        print("\(outcome) into \(arguments[2])")
        for reason in outcome.skipped { print("  skipped \(reason)") }
    case "help", "--help", "-h":
        print(usage)
    default:
        FileHandle.standardError.write(Data((usage + "\n").utf8))
        exit(2)
    }
} catch {
    FileHandle.standardError.write(Data("floe: \(error)\n".utf8))
    exit(1)
}
