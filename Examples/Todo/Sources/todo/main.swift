import Floe
import Foundation

// A todo list kept in a Floe file: add, done, list, and watch, which prints every change
// another `todo` process (or this one) commits until it is interrupted.

final class TodoItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var done = false
}

let usage = """
usage: todo [--file PATH] <command>

commands:
  add "text"   add a todo and print its id
  done ID      mark todo ID as done
  list         print every todo
  watch        print the list, then every change to it from a change stream, until
               interrupted; while it runs it also reads `add text` and `done ID` lines
               from standard input (the file has one writer process at a time)

The list lives in todo.floe in the current directory unless --file names another file.
"""

func fail(_ message: String, status: Int32) -> Never {
    FileHandle.standardError.write(Data("todo: \(message)\n".utf8))
    exit(status)
}

var arguments = Array(CommandLine.arguments.dropFirst())
var path = "todo.floe"
if let flag = arguments.firstIndex(of: "--file") {
    guard flag + 1 < arguments.count else { fail("--file needs a path\n\n\(usage)", status: 2) }
    path = arguments[flag + 1]
    arguments.removeSubrange(flag...(flag + 1))
}
guard let command = arguments.first else { fail("no command\n\n\(usage)", status: 2) }
let operands = Array(arguments.dropFirst())

/// Adds a todo with the next free id, inside a write, and returns the id.
func add(_ text: String, to realm: Realm) async throws -> Int {
    try await realm.write { realm in
        let id = (realm.objects(TodoItem.self).map(\.id).max() ?? 0) + 1
        _ = try realm.create(TodoItem.self, value: ["id": id, "text": text])
        return id
    }
}

/// Marks todo `id` as done; false when there is no such todo.
func markDone(_ id: Int, in realm: Realm) async throws -> Bool {
    try await realm.write { realm in
        guard let item = realm.object(ofType: TodoItem.self, forPrimaryKey: id) else { return false }
        item.done = true
        return true
    }
}

/// One line per todo: `[x] 3 buy milk`.
func line(id: Int, text: String, done: Bool) -> String {
    "[\(done ? "x" : " ")] \(id) \(text)"
}

do {
    let realm = try await Realm(configuration: Realm.Configuration(
        fileURL: URL(fileURLWithPath: path), objectTypes: [TodoItem.self]))
    switch (command, operands.count) {
    case ("add", 1):
        print("added \(try await add(operands[0], to: realm))")
    case ("done", 1):
        guard let id = Int(operands[0]) else { fail("\(operands[0]) is not a todo id", status: 2) }
        guard try await markDone(id, in: realm) else { fail("there is no todo \(id)", status: 1) }
        print("done \(id)")
    case ("list", 0):
        let lines = try await realm.read { realm in
            try realm.objects(TodoItem.self).sorted(byKeyPath: "id").map { line(id: $0.id, text: $0.text, done: $0.done) }
        }
        for text in lines { print(text) }
    case ("watch", 0):
        let changes = try await realm.read { realm in
            try realm.objects(TodoItem.self).sorted(byKeyPath: "id").changes
        }
        // Commands on standard input write through this process, so the stream reports them.
        let input = Task.detached {
            while let text = readLine() {
                if text.hasPrefix("add ") {
                    _ = try? await add(String(text.dropFirst(4)), to: realm)
                } else if text.hasPrefix("done "), let id = Int(text.dropFirst(5)) {
                    if (try? await markDone(id, in: realm)) != true { FileHandle.standardError.write(Data("todo: there is no todo \(id)\n".utf8)) }
                } else if !text.isEmpty {
                    FileHandle.standardError.write(Data("todo: watch reads `add text` or `done ID`, not \(text)\n".utf8))
                }
            }
        }
        _ = input
        for await change in changes {
            switch change {
            case .initial(let items):
                print("\(items.count) todos")
                for item in items { print(line(id: item.id, text: item.text, done: item.done)) }
            case .update(let items, let deletions, let insertions, let modifications):
                for position in deletions { print("deleted #\(position)") }
                for position in insertions {
                    let item = items[position]
                    print("added " + line(id: item.id, text: item.text, done: item.done))
                }
                for position in modifications {
                    // Modifications are positions in the previous state; without deletions
                    // before them they are the same positions in the new one.
                    let shifted = position - deletions.filter { $0 < position }.count
                        + insertions.filter { $0 <= position }.count
                    guard shifted < items.count else { continue }
                    let item = items[shifted]
                    print("changed " + line(id: item.id, text: item.text, done: item.done))
                }
            }
            fflush(nil)   // nil: every output stream, so a pipe sees each change at once
        }
    default:
        fail("unknown command or wrong arguments: \(arguments.joined(separator: " "))\n\n\(usage)", status: 2)
    }
} catch {
    fail("\(error)", status: 1)
}
