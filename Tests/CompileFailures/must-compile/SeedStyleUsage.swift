// Must compile: the shapes the seeds use, so a rejection above is about what it tests.
import Foundation
import Floe

final class Todo: Object {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var name: String
    @Persisted var owner: String
    @Persisted var status: String
}

actor RealmActor {
    var realm: Realm!

    init() async throws {
        realm = try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: "compile-check"))
    }

    var count: Int {
        get async throws { try await realm.read { realm in realm.objects(Todo.self).count } }
    }

    func createTodo(name: String, owner: String, status: String) async throws {
        try await realm.asyncWrite { realm in
            try realm.create(Todo.self, value: [
                "_id": ObjectId.generate(),
                "name": name,
                "owner": owner,
                "status": status,
            ])
        }
    }
}

func frozenAcrossTasks(_ realm: Realm) async throws -> [String] {
    let frozen = try await realm.read { realm in try realm.objects(Todo.self).freeze() }
    return await Task.detached { frozen.map(\.name) }.value
}
