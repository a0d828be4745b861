import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// The `floe` command: a demo, and tools to look inside a file, query it, import into it,
// follow it, and verify, compact, copy and recover it. Commands and their arguments are
// described in Commands.swift.

let arguments = Array(CommandLine.arguments.dropFirst())
guard let command = arguments.first else { usageError("no command given") }
if ["help", "--help", "-h"].contains(command) {
    print(usage)
    exit(0)
}
guard let spec = commandSpecs.first(where: { $0.name == command }) else { usageError("unknown command '\(command)'") }
let parsed = parse(Array(arguments.dropFirst()), for: spec)
let operands = parsed.operands
if command != "demo" { requireFile(operands[0]) }
if command == "import" { requireFile(operands[2]) }
do {
    switch command {
    case "demo":
        try await Demo.run(directory: FileManager.default.currentDirectoryPath)
    case "schema":
        try Stats.schema(path: operands[0])
    case "stats":
        try withElapsedProgress("reading \(operands[0])") { try Stats.stats(path: operands[0]) }
    case "inspect":
        try Inspect.run(path: operands[0])
    case "dump":
        try Dump.run(path: operands[0], className: operands.count == 2 ? operands[1] : nil, jsonLines: parsed.has("jsonl"))
    case "query":
        var limit: Int?
        if let text = parsed.flags["limit"] {
            guard let number = Int(text), number >= 0 else { usageError("--limit needs a whole number, not '\(text)'") }
            limit = number
        }
        try Query.run(path: operands[0], className: operands[1], predicate: operands[2], sortKey: parsed.flags["sort"],
                      descending: parsed.has("descending"), limit: limit)
    case "verify":
        let store = try Store.open(path: operands[0], options: StoreOptions(readOnly: true))
        let report = try withElapsedProgress("verifying \(operands[0])") { try store.verify() }
        let notes = TailNotes.describe(store)
        store.close()
        print(report)
        for note in notes { print("note: \(note)") }
        if !report.isValid { exit(1) }
    case "compact":
        let store = try Store.open(path: operands[0])
        let before = store.fileSize
        try withElapsedProgress("compacting \(operands[0])") { try store.compact() }
        print("compacted \(operands[0]): \(before) → \(store.fileSize) bytes")
        store.close()
    case "copy":
        guard !FileManager.default.fileExists(atPath: operands[1]) else {
            FileHandle.standardError.write(Data("floe: \(operands[1]) already exists; copy writes a new file\n".utf8))
            exit(1)
        }
        let store = try Store.open(path: operands[0], options: StoreOptions(readOnly: true))
        try withElapsedProgress("copying \(operands[0])") { try store.writeCopy(to: operands[1]) }
        print("copied version \(store.currentVersion) of \(operands[0]) into \(operands[1])")
        store.close()
    case "import":
        try Import.run(path: operands[0], className: operands[1], dataPath: operands[2])
    case "recover":
        let outcome = try withElapsedProgress("recovering \(operands[0])") { try Store.recover(path: operands[0], to: operands[1]) }
        print("\(outcome) into \(operands[1])")
        for reason in outcome.skipped { print("  skipped \(reason)") }
    case "watch":
        try Watch.run(path: operands[0], className: operands.count == 2 ? operands[1] : nil)
    default:
        usageError("unknown command '\(command)'")
    }
} catch {
    FileHandle.standardError.write(Data("floe: \(error)\n".utf8))
    exit(1)
}
