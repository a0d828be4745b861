import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

final class LocalizedErrorKennel: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
}

/// `error.localizedDescription`, which Realm users print, is Floe's own message: it names the
/// class, property and value rather than Foundation's generic sentence.
@Suite struct LocalizedErrorTests {
    @Test func aRefusedWriteIsDescribedByItsOwnMessage() async throws {
        let realm = try await inMemoryRealm("localized", objectTypes: [LocalizedErrorKennel.self])
        do {
            try await realm.write { realm in
                _ = try realm.create(LocalizedErrorKennel.self, value: ["id": 1, "name": 42])
            }
            Issue.record("a number for a string was accepted")
        } catch {
            let message = error.localizedDescription
            #expect(message == (error as? FloeError)?.description)
            #expect(message.contains("LocalizedErrorKennel.name"))
            #expect(message.contains("42"))
            #expect(!message.contains("could not be completed"))
        }
        let stored = try await realm.read { realm in realm.objects(LocalizedErrorKennel.self).count }
        #expect(stored == 0)
    }

    @Test func everyCaseAnswersItsDescription() {
        let errors: [FloeError] = [
            .notAFloeFile(path: "dogs.floe"),
            .typeMismatch(table: "Dog", column: "age", expected: "Int", value: "\"old\""),
        ]
        for error in errors {
            #expect((error as Error).localizedDescription == error.description)
        }
    }
}
