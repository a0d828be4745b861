import Floe
import Foundation
import Hummingbird
import HummingbirdWebSocket

// A todo list served over HTTP on 127.0.0.1: a JSON REST API, a web page, and a WebSocket
// that sends the whole list again each time a Floe change stream reports a commit.

final class TodoItem: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var text = ""
    @Persisted var done = false
}

/// A todo as the API sends it.
struct TodoJSON: Codable, ResponseEncodable {
    let id: Int
    let text: String
    let done: Bool
}

/// What `POST /todos` takes.
struct NewTodo: Decodable {
    let text: String
}

/// What `PATCH /todos/:id` takes: either field, or both.
struct TodoPatch: Decodable {
    let text: String?
    let done: Bool?
}

/// The message each WebSocket client receives on connecting and after every change.
struct ListMessage: Encodable {
    let todos: [TodoJSON]
}

var port = 8080
var path = "todos.floe"
var arguments = Array(CommandLine.arguments.dropFirst())
while let flag = arguments.first {
    arguments.removeFirst()
    guard let value = arguments.first else { break }
    arguments.removeFirst()
    switch flag {
    case "--port": port = Int(value) ?? port
    case "--file": path = value
    default: break
    }
}

let realm = try await Realm(configuration: Realm.Configuration(
    fileURL: URL(fileURLWithPath: path), objectTypes: [TodoItem.self]))

func allTodos() async throws -> [TodoJSON] {
    try await realm.read { realm in
        try realm.objects(TodoItem.self).sorted(byKeyPath: "id").map { TodoJSON(id: $0.id, text: $0.text, done: $0.done) }
    }
}

let router = Router(context: BasicWebSocketRequestContext.self)

router.get("/") { _, _ -> Response in
    Response(status: .ok, headers: [.contentType: "text/html; charset=utf-8"],
             body: .init(byteBuffer: ByteBuffer(string: page)))
}

router.get("/todos") { _, _ -> [TodoJSON] in
    try await allTodos()
}

router.post("/todos") { request, context -> EditedResponse<TodoJSON> in
    let new = try await request.decode(as: NewTodo.self, context: context)
    let todo = try await realm.write { realm in
        let id = (realm.objects(TodoItem.self).map(\.id).max() ?? 0) + 1
        _ = try realm.create(TodoItem.self, value: ["id": id, "text": new.text])
        return TodoJSON(id: id, text: new.text, done: false)
    }
    return EditedResponse(status: .created, response: todo)
}

router.patch("/todos/:id") { request, context -> TodoJSON in
    let id = try context.parameters.require("id", as: Int.self)
    let patch = try await request.decode(as: TodoPatch.self, context: context)
    let todo = try await realm.write { realm -> TodoJSON? in
        guard let item = realm.object(ofType: TodoItem.self, forPrimaryKey: id) else { return nil }
        if let text = patch.text { item.text = text }
        if let done = patch.done { item.done = done }
        return TodoJSON(id: item.id, text: item.text, done: item.done)
    }
    guard let todo else { throw HTTPError(.notFound, message: "there is no todo \(id)") }
    return todo
}

router.delete("/todos/:id") { _, context -> HTTPResponse.Status in
    let id = try context.parameters.require("id", as: Int.self)
    let deleted = try await realm.write { realm in
        guard let item = realm.object(ofType: TodoItem.self, forPrimaryKey: id) else { return false }
        try realm.delete(item)
        return true
    }
    guard deleted else { throw HTTPError(.notFound, message: "there is no todo \(id)") }
    return .noContent
}

router.ws("/live") { inbound, outbound, _ in
    // The stream's first element is the list as it is now; each later one follows a commit,
    // whoever made it (this page, another browser, curl).
    let changes = try await realm.read { realm in
        try realm.objects(TodoItem.self).sorted(byKeyPath: "id").changes
    }
    try await withThrowingTaskGroup(of: Void.self) { group in
        group.addTask {
            let encoder = JSONEncoder()
            for await change in changes {
                let items: [TodoJSON]
                switch change {
                case .initial(let todos), .update(let todos, _, _, _):
                    items = todos.map { TodoJSON(id: $0.id, text: $0.text, done: $0.done) }
                }
                let json = try encoder.encode(ListMessage(todos: items))
                try await outbound.write(.text(String(decoding: json, as: UTF8.self)))
            }
        }
        group.addTask {
            // The page sends nothing, but reading is how a closed page is noticed at once
            // (not at the next commit), and how the close handshake of a graceful shutdown
            // (SIGTERM) ends: the inbound messages end when the client closes or answers a close.
            for try await _ in inbound {}
        }
        // Whichever ends first (the client went away, or a write failed) stops the other:
        // cancelling the change stream's iteration ends it and releases its observer.
        try await group.next()
        group.cancelAll()
    }
}

let requestedPort = port
let app = Application(
    router: router,
    server: .http1WebSocketUpgrade(webSocketRouter: router),
    configuration: .init(address: .hostname("127.0.0.1", port: requestedPort)),
    onServerRunning: { channel in
        // Port 0 asks for a free port; print the one given so scripts can find it.
        print("listening on http://127.0.0.1:\(channel.localAddress?.port ?? requestedPort)")
        fflush(nil)
    }
)
try await app.runService()
