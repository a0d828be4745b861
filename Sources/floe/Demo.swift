import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

/// A model for the demo.
final class Dog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    /// Computed properties are not stored, but frozen objects read them too.
    var summary: String { "\(name), \(age) years, \(color)" }
}

/// `floe demo`: a short tour that opens `default.floe` in the current directory, writes
/// from a task, queries, freezes a snapshot and reads it from other tasks, and streams the
/// commits as they happen.
enum Demo {
    static func run(directory: String) async throws {
        var configuration = Realm.Configuration()
        configuration.fileURL = URL(fileURLWithPath: directory).appendingPathComponent("default.floe")
        configuration.objectTypes = [Dog.self]
        let realm = try await Realm(configuration: configuration)
        print("opened \(configuration.fileURL!.path)")

        // Stream: every commit's version, as it happens.
        // A slow consumer gets the newest version rather than a growing buffer, so the watcher
        // waits for the version the two writes below will reach, not for two values.
        let commits = realm.commits()
        let (before, startVersion) = try await realm.read { realm in (realm.objects(Dog.self).count, try realm.freeze().version) }
        let watcher = Task {
            var seen: [UInt64] = []
            for await version in commits {
                seen.append(version)
                if version >= startVersion + 2 { break }
            }
            return seen
        }

        // Write from this task: five dogs, each with a fresh primary key.
        let colors = ["red", "brown", "black", "white", "grey"]
        try await realm.write { realm in
            for index in 0..<5 {
                let dog = Dog()
                dog.id = before + index
                dog.name = "dog\(before + index)"
                dog.age = (before + index) * 3 % 15
                dog.color = colors[index]
                try realm.add(dog)
            }
        }
        print("wrote 5 dogs; the realm now holds \(before + 5)")

        // Query: a Sendable answer computed on the realm's actor.
        let older = try await realm.read { realm in
            realm.objects(Dog.self).filter { $0.age > 6 }.map(\.name)
        }
        print("dogs older than 6: \(older.count) (\(older.prefix(5).joined(separator: ", "))\(older.count > 5 ? ", …" : ""))")

        // Freeze: a Sendable snapshot, read from other tasks while the realm changes.
        let frozenDogs = try await realm.read { realm in try realm.objects(Dog.self).freeze() }
        try await realm.write { realm in
            let first = realm.objects(Dog.self).first
            first?.name = "renamed"
            try realm.create(Dog.self, value: ["id": before + 1000, "name": "late dog", "age": 1, "color": "grey"])
        }
        let fromOtherTask = await Task.detached { frozenDogs.map(\.summary) }.value
        let liveCount = try await realm.read { realm in realm.objects(Dog.self).count }
        print("frozen snapshot (version \(frozenDogs.version)): \(fromOtherTask.count) dogs, first \"\(fromOtherTask[0])\"; live realm: \(liveCount) dogs")

        let streamed = await watcher.value
        print("change stream delivered commit versions \(streamed.map(String.init).joined(separator: ", "))")

        // Verify: every checksum of the file and every rule of the newest version's trees.
        let report = try Store.verify(path: configuration.fileURL!.path)
        print("verified \(configuration.fileURL?.lastPathComponent ?? "the file"): \(report.isValid ? "ok" : "PROBLEMS"), "
              + "\(report.commits) commits, version \(report.version)")
        if !report.isValid { throw DemoFailure(description: "\(report)") }
    }

    struct DemoFailure: Error, CustomStringConvertible {
        let description: String
    }
}
