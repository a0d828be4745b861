import Foundation
import Testing
@testable @_spi(Engine) import Floe
@testable @_spi(Engine) import FloeEngine
@testable @_spi(Engine) import FloeStorage

/// The `floe` commands a user reaches for around a file — schema, stats, dump --jsonl, query,
/// copy, import, watch and --help — run as a user runs them: the built binary, in a directory.
@Suite(.ownThread) struct CommandLineCommandsTests {
    struct Run {
        let status: Int32
        let stdout: String
        let stderr: String
    }

    static func floe(_ arguments: [String], in directory: String, environment: [String: String]? = nil) throws -> Run {
        let process = Process()
        process.executableURL = try CrashChildProcess.executable().deletingLastPathComponent().appendingPathComponent("floe")
        process.arguments = arguments
        process.currentDirectoryURL = URL(fileURLWithPath: directory)
        if let environment { process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 } }
        let output = Pipe(), errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        // Standard error is read on another thread so neither pipe fills while the other is read.
        // Waited for with a semaphore: a thread that has not started yet is not "executing".
        let errorData = Locked(Data())
        let finished = DispatchSemaphore(value: 0)
        let reader = Thread {
            errorData.withLock { $0 = errors.fileHandleForReading.readDataToEndOfFile() }
            finished.signal()
        }
        reader.start()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        finished.wait()
        return Run(status: process.terminationStatus, stdout: String(decoding: data, as: UTF8.self),
                   stderr: String(decoding: errorData.withLock { $0 }, as: UTF8.self))
    }

    /// A file with links, a list and a string primary key, written through the engine (no
    /// model classes: the tool never has them either).
    static func makeKennel(at path: String) throws {
        let store = try Store.open(path: path)
        let transaction = try store.beginWrite()
        let owners = try transaction.createTable(TableSpec(name: "Owner", columns: [
            ColumnSpec(name: "name", type: .string, isIndexed: true, isPrimaryKey: true),
            ColumnSpec(name: "city", type: .string),
        ]))
        let pets = try transaction.createTable(TableSpec(name: "Pet", columns: [
            ColumnSpec(name: "id", type: .int, isIndexed: true, isPrimaryKey: true),
            ColumnSpec(name: "name", type: .string),
            ColumnSpec(name: "age", type: .int),
            ColumnSpec(name: "weight", type: .double, isNullable: true),
            ColumnSpec(name: "owner", type: .link, isNullable: true, linkTarget: "Owner"),
            ColumnSpec(name: "tags", type: .string, collection: .list),
        ]))
        // As an application whose Realm.Configuration.schemaVersion is 3 leaves it.
        try transaction.setSchemaVersion(3)
        let ada = try transaction.insertObject(into: owners, values: [.string("Ada"), .string("Oslo")])
        let bo = try transaction.insertObject(into: owners, values: [.string("Bo"), .string("Bergen")])
        for (id, name, age, owner) in [(1, "Rex", 3, ada), (2, "Bella", 7, bo), (3, "Max", 5, ada), (4, "Luna", 1, nil)] as [(Int64, String, Int64, Int64?)] {
            let key = try transaction.insertObject(into: pets, values: [.int(id), .string(name), .int(age), id == 4 ? .null : .double(Double(age) * 2.5),
                                                                    owner.map(Value.link) ?? .null, .null])
            try transaction.listAppend(contentsOf: [.string("good"), .string(name.lowercased())], in: pets, key: key, column: 5)
        }
        _ = try transaction.commit()
        store.close()
    }

    static func jsonLines(_ text: String) throws -> [[String: Any]] {
        try text.split(separator: "\n").map { line in
            try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "not a JSON object: \(line)")
        }
    }

    @Test func schemaAndStatsDescribeTheFile() throws {
        let directory = TemporaryDirectory()
        try Self.makeKennel(at: directory.file("kennel.floe"))
        let schema = try Self.floe(["schema", "kennel.floe"], in: directory.path)
        #expect(schema.status == 0, "\(schema.stderr)")
        #expect(schema.stdout.hasPrefix("schema version: 3\n"), "\(schema.stdout)")
        let inspect = try Self.floe(["inspect", "kennel.floe"], in: directory.path)
        #expect(inspect.status == 0 && inspect.stdout.contains("\nschema version: 3\n"), "\(inspect.stdout)")
        #expect(schema.stdout.contains("class Pet\n  id: int [primary key, indexed]\n"), "\(schema.stdout)")
        #expect(schema.stdout.contains("  owner: link → Owner?\n  tags: list<string>\n"), "\(schema.stdout)")
        #expect(schema.stdout.contains("class Owner\n  name: string [primary key, indexed]\n"), "\(schema.stdout)")

        _ = try Self.floe(["demo"], in: directory.path)
        _ = try Self.floe(["demo"], in: directory.path)
        let stats = try Self.floe(["stats", "default.floe"], in: directory.path)
        #expect(stats.status == 0, "\(stats.stderr)")
        let fields = Dictionary(stats.stdout.split(separator: "\n").compactMap { line -> (String, String)? in
            let parts = line.split(separator: ":", maxSplits: 1)
            return parts.count == 2 ? (parts[0].trimmingCharacters(in: .whitespaces), parts[1].trimmingCharacters(in: .whitespaces)) : nil
        }, uniquingKeysWith: { first, _ in first })
        // Two demos: the schema, then two writes each, every one a commit.
        #expect(fields["version"] == "5" && fields["commits held"] == "5", "\(stats.stdout)")
        #expect(fields["Dog"] == "12 objects", "\(stats.stdout)")
        let committed = Int(fields["committed bytes"] ?? "") ?? -1
        let live = Int(fields["live bytes"]?.split(separator: " ").first ?? "") ?? -1
        let dead = Int(fields["dead bytes"]?.split(separator: " ").first ?? "") ?? -1
        #expect(committed > 0 && live > 0 && dead > 0 && live + dead == committed, "\(stats.stdout)")
        // After compaction nothing is dead and only one commit is left.
        #expect(try Self.floe(["compact", "default.floe"], in: directory.path).status == 0)
        let compacted = try Self.floe(["stats", "default.floe"], in: directory.path)
        let deadAfter = compacted.stdout.split(separator: "\n").first { $0.hasPrefix("dead bytes: ") }
            .flatMap { Int($0.dropFirst("dead bytes: ".count).split(separator: " ")[0]) } ?? -1
        #expect(compacted.stdout.contains("commits held: 1\n") && deadAfter >= 0 && deadAfter < dead, "\(compacted.stdout)")
    }

    @Test func dumpWritesJSONLinesWithLinksAsPrimaryKeys() throws {
        let directory = TemporaryDirectory()
        try Self.makeKennel(at: directory.file("kennel.floe"))
        let dump = try Self.floe(["dump", "kennel.floe", "Pet", "--jsonl"], in: directory.path)
        #expect(dump.status == 0, "\(dump.stderr)")
        let pets = try Self.jsonLines(dump.stdout)
        #expect(pets.count == 4)
        #expect(pets.map { $0["_class"] as? String } == Array(repeating: "Pet", count: 4))
        #expect(pets.map { $0["owner"] as? String } == ["Ada", "Bo", "Ada", nil])
        #expect(pets[3]["owner"] is NSNull)
        #expect(pets[1]["tags"] as? [String] == ["good", "bella"])
        #expect(pets[0]["weight"] as? Double == 7.5)
        // Every class, one object per line.
        let all = try Self.floe(["dump", "kennel.floe", "--jsonl"], in: directory.path)
        let classes = try Self.jsonLines(all.stdout).compactMap { $0["_class"] as? String }
        #expect(classes.sorted() == ["Owner", "Owner", "Pet", "Pet", "Pet", "Pet"])
        // The whole-document form links by primary key too.
        let document = try Self.floe(["dump", "kennel.floe", "Pet"], in: directory.path)
        let parsed = try JSONSerialization.jsonObject(with: Data(document.stdout.utf8)) as? [String: [[String: Any]]]
        #expect(parsed?["Pet"]?.first?["owner"] as? String == "Ada")
    }

    @Test func queryFiltersSortsAndLimitsByTheStoredSchema() throws {
        let directory = TemporaryDirectory()
        try Self.makeKennel(at: directory.file("kennel.floe"))
        func names(_ arguments: [String]) throws -> [String] {
            let run = try Self.floe(["query", "kennel.floe", "Pet"] + arguments, in: directory.path)
            #expect(run.status == 0, "\(arguments): \(run.stderr)")
            return try Self.jsonLines(run.stdout).compactMap { $0["name"] as? String }
        }
        #expect(try names(["age >= 3"]) == ["Rex", "Bella", "Max"])
        #expect(try names(["age >= 3", "--sort", "name"]) == ["Bella", "Max", "Rex"])
        #expect(try names(["age >= 3", "--sort", "age", "--descending", "--limit", "2"]) == ["Bella", "Max"])
        #expect(try names(["name BEGINSWITH[c] 'l' OR weight == nil"]) == ["Luna"])
        #expect(try names(["ANY tags == 'max'"]) == ["Max"])
        #expect(try names(["owner == nil"]) == ["Luna"])
        #expect(try names(["name IN {'Rex', 'Luna'} AND NOT age > 2"]) == ["Luna"])
        #expect(try names(["age > 100"]) == [])

        // Typed errors, exit 1, nothing on standard output.
        for (predicate, message) in [("agee > 3", "Pet has no property 'agee'"), ("name > 3", "Invalid value 3 for 'Pet.name'"),
                                     ("age >", "predicate"), ("owner.name == 'Ada'", "'owner' links to Owner?: following links needs the model classes")] {
            let run = try Self.floe(["query", "kennel.floe", "Pet", predicate], in: directory.path)
            #expect(run.status == 1 && run.stdout.isEmpty && run.stderr.contains(message), "\(predicate): \(run.stderr)")
        }
        let badSort = try Self.floe(["query", "kennel.floe", "Pet", "age > 0", "--sort", "colour"], in: directory.path)
        #expect(badSort.status == 1 && badSort.stderr.contains("Pet has no property 'colour' to sort by"), "\(badSort.stderr)")
        let noClass = try Self.floe(["query", "kennel.floe", "Cat", "age > 0"], in: directory.path)
        #expect(noClass.status == 1 && noClass.stderr.contains("has no class named 'Cat' (it has Owner, Pet)"), "\(noClass.stderr)")
        let badLimit = try Self.floe(["query", "kennel.floe", "Pet", "age > 0", "--limit", "many"], in: directory.path)
        #expect(badLimit.status == 2 && badLimit.stderr.contains("floe: --limit needs a whole number, not 'many'"), "\(badLimit.stderr)")
    }

    @Test func importAddsEveryLineOrNothing() throws {
        let directory = TemporaryDirectory()
        try Self.makeKennel(at: directory.file("kennel.floe"))
        let good = """
        {"id": 10, "name": "Fido", "age": 2, "weight": 4.5, "owner": "Bo", "tags": ["new"]}
        {"_class": "Pet", "_key": 99, "id": 11, "name": "Kira", "age": 4}

        """
        try good.write(toFile: directory.file("good.jsonl"), atomically: true, encoding: .utf8)
        let imported = try Self.floe(["import", "kennel.floe", "Pet", "good.jsonl"], in: directory.path)
        #expect(imported.status == 0 && imported.stdout.hasPrefix("imported 2 Pet objects"), "\(imported.stdout) \(imported.stderr)")
        let fido = try Self.jsonLines(try Self.floe(["query", "kennel.floe", "Pet", "id == 10"], in: directory.path).stdout)
        #expect(fido.first?["owner"] as? String == "Bo" && fido.first?["tags"] as? [String] == ["new"] && fido.first?["weight"] as? Double == 4.5)
        let kira = try Self.jsonLines(try Self.floe(["query", "kennel.floe", "Pet", "id == 11"], in: directory.path).stdout)
        #expect(kira.first?["weight"] is NSNull && kira.first?["tags"] as? [String] == [], "\(kira)")

        // Each bad input names the line and the property; the file keeps its version.
        let before = try Self.floe(["stats", "kennel.floe"], in: directory.path).stdout
        let cases: [(String, String)] = [
            (#"{"id": 20, "name": "A"}"# + "\n" + #"{"id": 21, "name": "B", "age": "old"}"#, "line 2: Pet.age takes an integer, not \"old\""),
            (#"{"id": 20, "name": "A", "age": true}"#, "line 1: Pet.age takes an integer, not true"),
            (#"{"id": 20, "colour": "red"}"#, "line 1: Pet has no property 'colour'"),
            (#"{"name": "no key"}"#, "line 1: Pet.id (the primary key) is missing"),
            (#"{"id": 20, "name": null}"#, "line 1: Pet.name takes a string, not null"),
            (#"{"id": 20, "owner": "Cy"}"#, "line 1: Pet.owner links to Owner \"Cy\", which does not exist"),
            (#"{"id": 20, "tags": "one"}"#, "line 1: Pet.tags takes an array, not \"one\""),
            (#"{"id": 20}"# + "\n" + #"{"id": 1}"#, "line 2: Pet:"),
            ("{\"id\": 20}\n[1, 2]", "line 2: not a JSON object"),
            ("{\"id\": 20}\n{\"id\": ", "line 2: not a JSON object (invalid JSON)"),
        ]
        for (text, message) in cases {
            try text.write(toFile: directory.file("bad.jsonl"), atomically: true, encoding: .utf8)
            let run = try Self.floe(["import", "kennel.floe", "Pet", "bad.jsonl"], in: directory.path)
            #expect(run.status == 1 && run.stdout.isEmpty && run.stderr.contains(message), "\(text): \(run.stderr)")
        }
        #expect(try Self.floe(["stats", "kennel.floe"], in: directory.path).stdout == before, "a refused import changed the file")
        #expect(try Self.floe(["query", "kennel.floe", "Pet", "id == 20"], in: directory.path).stdout.isEmpty)

        // A dump of one class imports into a copy that has none of its objects.
        let dump = try Self.floe(["dump", "kennel.floe", "Owner", "--jsonl"], in: directory.path).stdout
        try dump.write(toFile: directory.file("owners.jsonl"), atomically: true, encoding: .utf8)
        let store = try Store.open(path: directory.file("kennel.floe"))
        let transaction = try store.beginWrite()
        try transaction.removeAllObjects(from: try transaction.table(named: "Owner"))
        _ = try transaction.commit()
        store.close()
        let reimported = try Self.floe(["import", "kennel.floe", "Owner", "owners.jsonl"], in: directory.path)
        #expect(reimported.status == 0, "\(reimported.stderr)")
        // Object keys are the file's own; the objects are the same.
        func owners(_ text: String) throws -> [String] {
            try Self.jsonLines(text).map { "\($0["name"] ?? "") in \($0["city"] ?? "")" }.sorted()
        }
        let after = try Self.floe(["dump", "kennel.floe", "Owner", "--jsonl"], in: directory.path).stdout
        #expect(try owners(after) == ["Ada in Oslo", "Bo in Bergen"] && owners(after) == owners(dump), "\(after)")
    }

    @Test func copyWritesANewFileAndRefusesToOverwrite() throws {
        let directory = TemporaryDirectory()
        _ = try Self.floe(["demo"], in: directory.path)
        let copy = try Self.floe(["copy", "default.floe", "copy.floe"], in: directory.path)
        #expect(copy.status == 0 && copy.stdout.hasPrefix("copied version 3 of default.floe into copy.floe"), "\(copy.stdout) \(copy.stderr)")
        #expect(try Self.floe(["dump", "copy.floe", "--jsonl"], in: directory.path).stdout
                == (try Self.floe(["dump", "default.floe", "--jsonl"], in: directory.path).stdout))
        #expect(try Self.floe(["verify", "copy.floe"], in: directory.path).status == 0)
        let again = try Self.floe(["copy", "default.floe", "copy.floe"], in: directory.path)
        #expect(again.status == 1 && again.stderr.contains("copy.floe already exists"), "\(again.stderr)")
    }

    @Test func watchPrintsEachCommitOfAnotherProcess() throws {
        let directory = TemporaryDirectory()
        try Self.makeKennel(at: directory.file("kennel.floe"))
        let process = Process()
        process.executableURL = try CrashChildProcess.executable().deletingLastPathComponent().appendingPathComponent("floe")
        process.arguments = ["watch", "kennel.floe", "Pet"]
        process.currentDirectoryURL = URL(fileURLWithPath: directory.path)
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        let lines = Locked<[String]>([])
        output.fileHandleForReading.readabilityHandler = { handle in
            let text = String(decoding: handle.availableData, as: UTF8.self)
            lines.withLock { $0.append(contentsOf: text.split(separator: "\n").map(String.init)) }
        }
        try process.run()
        defer {
            output.fileHandleForReading.readabilityHandler = nil
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        }
        func waitFor(_ count: Int) -> [String] {
            let deadline = Date().addingTimeInterval(20)
            while lines.withLock({ $0.count }) < count, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            return lines.withLock { $0 }
        }
        #expect(waitFor(1).first == "watching kennel.floe at version 1")
        try #"{"id": 10, "name": "Fido"}"#.write(toFile: directory.file("a.jsonl"), atomically: true, encoding: .utf8)
        #expect(try Self.floe(["import", "kennel.floe", "Pet", "a.jsonl"], in: directory.path).status == 0)
        #expect(waitFor(2).last == "version 2: Pet +1 -0 ~0", "\(lines.withLock { $0 })")
        // A commit to another class prints nothing; the next one to Pet does.
        try #"{"name": "Cy", "city": "Rome"}"#.write(toFile: directory.file("b.jsonl"), atomically: true, encoding: .utf8)
        #expect(try Self.floe(["import", "kennel.floe", "Owner", "b.jsonl"], in: directory.path).status == 0)
        try #"{"id": 11}"# .write(toFile: directory.file("c.jsonl"), atomically: true, encoding: .utf8)
        #expect(try Self.floe(["import", "kennel.floe", "Pet", "c.jsonl"], in: directory.path).status == 0)
        // Compaction replaces the file; the watcher follows the new one.
        #expect(try Self.floe(["compact", "kennel.floe"], in: directory.path).status == 0)
        try #"{"id": 12}"# .write(toFile: directory.file("d.jsonl"), atomically: true, encoding: .utf8)
        #expect(try Self.floe(["import", "kennel.floe", "Pet", "d.jsonl"], in: directory.path).status == 0)
        let seen = waitFor(4)
        #expect(seen == ["watching kennel.floe at version 1", "version 2: Pet +1 -0 ~0", "version 4: Pet +1 -0 ~0", "version 5: Pet +1 -0 ~0"], "\(seen)")
        #expect(process.isRunning, "watch stopped by itself")
        // It runs until it is stopped, and a terminate stops it.
        process.terminate()
        let deadline = Date().addingTimeInterval(10)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
        #expect(!process.isRunning, "watch ignored SIGTERM")
    }

    /// Every command answers --help with its synopsis and exit codes, and exits 0; the usage
    /// text documents the exit codes; an unknown option is a usage error.
    @Test func everyCommandHasHelp() throws {
        let directory = TemporaryDirectory()
        let commands = ["demo", "schema", "stats", "inspect", "dump", "query", "verify", "compact", "copy", "import", "recover", "watch"]
        for command in commands {
            let run = try Self.floe([command, "--help"], in: directory.path)
            #expect(run.status == 0 && run.stdout.hasPrefix("usage: floe \(command)"), "\(command): \(run.stdout) \(run.stderr)")
            #expect(run.stdout.contains("exit status: 0 done, 1"), "\(command)")
        }
        let usage = try Self.floe(["--help"], in: directory.path)
        for command in commands { #expect(usage.stdout.contains("\n  \(command) "), "usage lacks \(command)") }
        #expect(usage.stdout.contains("exit status: 0 done, 1") && usage.stdout.contains("2 wrong usage"))
        let unknown = try Self.floe(["dump", "x.floe", "--frob"], in: directory.path)
        #expect(unknown.status == 2 && unknown.stderr.contains("floe: 'dump' has no option --frob"), "\(unknown.stderr)")
        let missingValue = try Self.floe(["query", "x.floe", "Pet", "age > 1", "--sort"], in: directory.path)
        #expect(missingValue.status == 2 && missingValue.stderr.contains("floe: --sort needs a key"), "\(missingValue.stderr)")
    }

    /// Past the threshold (1 s; `FLOE_PROGRESS_AFTER` sets it) a progress line goes to standard
    /// error, never standard output.
    @Test func longOperationsShowProgressOnStandardError() throws {
        let directory = TemporaryDirectory()
        try Self.makeKennel(at: directory.file("kennel.floe"))
        let lines = (100..<400).map { #"{"id": \#($0), "name": "p\#($0)", "age": \#($0 % 9)}"# }.joined(separator: "\n")
        try lines.write(toFile: directory.file("many.jsonl"), atomically: true, encoding: .utf8)
        let imported = try Self.floe(["import", "kennel.floe", "Pet", "many.jsonl"], in: directory.path, environment: ["FLOE_PROGRESS_AFTER": "0"])
        #expect(imported.status == 0 && imported.stderr.contains("importing Pet: 300/300"), "\(imported.stderr)")
        let dump = try Self.floe(["dump", "kennel.floe", "Pet", "--jsonl"], in: directory.path, environment: ["FLOE_PROGRESS_AFTER": "0"])
        #expect(dump.stderr.contains("dumping Pet: 304/304") && !dump.stdout.contains("dumping"), "\(dump.stderr)")
        #expect(try Self.jsonLines(dump.stdout).count == 304)
        let quiet = try Self.floe(["dump", "kennel.floe", "Pet", "--jsonl"], in: directory.path)
        #expect(quiet.stderr.isEmpty, "\(quiet.stderr)")
    }

    /// Operations without a count to show (verify, stats, copy, compact, recover) show the time
    /// spent on standard error past the threshold, and how long they took; below it, nothing.
    @Test func operationsWithoutACountShowTheTimeSpent() throws {
        let directory = TemporaryDirectory()
        try Self.makeKennel(at: directory.file("kennel.floe"))
        let now = ["FLOE_PROGRESS_AFTER": "0"]
        let runs: [(arguments: [String], line: String)] = [
            (["verify", "kennel.floe"], "verifying kennel.floe: done in "),
            (["stats", "kennel.floe"], "reading kennel.floe: done in "),
            (["copy", "kennel.floe", "copy.floe"], "copying kennel.floe: done in "),
            (["compact", "kennel.floe"], "compacting kennel.floe: done in "),
            (["recover", "kennel.floe", "saved.floe"], "recovering kennel.floe: done in "),
        ]
        for run in runs {
            let result = try Self.floe(run.arguments, in: directory.path, environment: now)
            #expect(result.status == 0, "\(run.arguments): \(result.stderr)")
            #expect(result.stderr.contains(run.line) && !result.stdout.contains(run.line), "\(run.arguments): \(result.stderr)")
        }
        let quiet = try Self.floe(["verify", "kennel.floe"], in: directory.path)
        #expect(quiet.status == 0 && quiet.stderr.isEmpty, "\(quiet.stderr)")
    }
}
