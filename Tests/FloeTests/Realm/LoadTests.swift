import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Many writers and readers at once on one file: 100 tasks × 1,000 awaited durable writes
/// (sharing syncs through group commit) while reader tasks freeze the realm and read the
/// snapshots from other tasks. Runs under the thread sanitizer in CI. Nothing is lost, every
/// snapshot reads whole, and the versions held stay bounded.
@Suite struct LoadTests {
    final class Event: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var writer = 0
        @Persisted var sequence = 0
    }

    @Test func hundredWritersAndReadersLoseNothing() async throws {
        let directory = TemporaryDirectory("load")
        let url = directory.url()
        let writers = 100, writesPerWriter = 1_000
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Event.self]))
        let done = Flag()
        let maximumVersions = Counter()
        let snapshotsRead = Counter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for reader in 0..<4 {
                group.addTask {
                    while !done.isSet {
                        let frozen = try await realm.read { realm in try realm.freeze() }
                        // Read on another task: a frozen snapshot is Sendable and never changes.
                        let writer = Int.random(in: 0..<writers)
                        let gap = await Task.detached { () -> String? in
                            // A writer's events land in order: the ones a snapshot holds are a prefix.
                            func has(_ sequence: Int) -> Bool {
                                (try? frozen.object(ofType: Event.self, forPrimaryKey: writer * writesPerWriter + sequence)) != nil
                            }
                            var low = 0, high = writesPerWriter
                            while low < high {
                                let middle = (low + high) / 2
                                if has(middle) { low = middle + 1 } else { high = middle }
                            }
                            let holes = (0..<low).filter { _ in Bool.random() }.prefix(16).filter { !has($0) }
                            return holes.isEmpty ? nil : "writer \(writer) holds \(low) events but not \(holes)"
                        }.value
                        #expect(gap == nil, "reader \(reader): \(gap ?? "")")
                        snapshotsRead.add(1)
                        maximumVersions.raise(to: realm.store.activeVersionCount)
                        try await Task.sleep(nanoseconds: 2_000_000)
                    }
                }
            }
            try await withThrowingTaskGroup(of: Void.self) { writersGroup in
                for writer in 0..<writers {
                    writersGroup.addTask {
                        for sequence in 0..<writesPerWriter {
                            try await realm.asyncWrite { realm in
                                try realm.create(Event.self, value: ["id": writer * writesPerWriter + sequence, "writer": writer, "sequence": sequence])
                            }
                        }
                    }
                }
                try await writersGroup.waitForAll()
            }
            done.set()
            try await group.waitForAll()
        }
        #expect(try await realm.read { realm in realm.objects(Event.self).count } == writers * writesPerWriter)
        #expect(snapshotsRead.value > 0)
        // Each reader holds at most one snapshot at a time, plus the newest version.
        #expect(maximumVersions.value <= 8, "up to \(maximumVersions.value) versions were alive at once")
        let syncs = realm.store.groupCommit.rounds
        // Writes queued together share syncs (how many depends on commit and sync speeds).
        #expect(syncs < writers * writesPerWriter * 9 / 10, "\(syncs) syncs for \(writers * writesPerWriter) writes")
        print("load: \(writers * writesPerWriter) writes, \(syncs) syncs, \(snapshotsRead.value) snapshots read, at most \(maximumVersions.value) versions alive")
    }
}

/// A flag set once, read from many tasks.
final class Flag: @unchecked Sendable {
    // @unchecked: `value` is only touched with `lock` held.
    private var value = false
    private let lock = NSLock()
    var isSet: Bool { lock.withLock { value } }
    func set() { lock.withLock { value = true } }
}

/// A counter many tasks add to, or raise to a maximum.
final class Counter: @unchecked Sendable {
    // @unchecked: `count` is only touched with `lock` held.
    private var count = 0
    private let lock = NSLock()
    var value: Int { lock.withLock { count } }
    func add(_ amount: Int) { lock.withLock { count += amount } }
    func raise(to candidate: Int) { lock.withLock { count = max(count, candidate) } }
}
