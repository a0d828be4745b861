import Foundation
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

extension Realm {
    /// The asymmetric objects of `type` waiting to leave the device, oldest first, as an
    /// `AsyncSequence` of batches: each batch holds frozen objects, and `acknowledge()` removes
    /// them from the file once the application has shipped them.
    ///
    /// Asymmetric objects are write-only: created with `create(_:value:)` inside a write, never
    /// added, queried or deleted. They wait in the realm's file (so they survive a restart)
    /// until acknowledged. A batch that is not acknowledged stays in the file and comes again
    /// from the next outbox (after a restart, say): delivery is at least once, in creation order.
    /// The sequence waits for new objects when the outbox is empty and ends when the iterating
    /// task is cancelled.
    ///
    /// ```swift
    /// for try await batch in realm.outbox(WeatherSensor.self) {
    ///     try await upload(batch.objects.map { ["deviceId": $0.deviceId, "temperature": $0.temperatureInFahrenheit] })
    ///     try await batch.acknowledge()
    /// }
    /// ```
    ///
    /// - Parameter type: the asymmetric class whose objects to hand out.
    /// - Parameter batchSize: the most objects one batch holds (at least 1).
    public nonisolated func outbox<T: AsymmetricObject>(_ type: T.Type, batchSize: Int = 100) -> Outbox<T> {
        Outbox(realm: self, batchSize: max(1, batchSize))
    }

    /// The oldest asymmetric objects of `type` after `key`, frozen, with their keys.
    func outboxBatch<T: AsymmetricObject>(_ type: T.Type, after key: Int64, limit: Int) throws -> OutboxBatch<T>? {
        try context.read {
            guard let binding = try context.tableBinding(for: T.self) else { return nil }
            let snapshot = try context.latestSnapshot()
            let keys = try snapshot.objectKeys(in: binding.table, after: key, limit: limit)
            guard !keys.isEmpty else { return nil }
            return OutboxBatch(objects: keys.map { Frozen(snapshot: snapshot, binding: binding, key: $0) }, keys: keys, realm: self)
        }
    }

    /// Removes acknowledged asymmetric objects (and the embedded objects they own).
    func acknowledgeOutbox<T: AsymmetricObject>(_ type: T.Type, keys: [Int64]) throws {
        try context.write {
            guard let binding = try context.tableBinding(for: T.self) else { return }
            for key in keys { try context.deleteRow(binding, key: key) }
        }
    }
}

/// The asymmetric objects of one class waiting to leave the device; see ``Realm/outbox(_:batchSize:)``.
public struct Outbox<T: AsymmetricObject>: AsyncSequence, Sendable {
    /// A batch of waiting objects, oldest first.
    public typealias Element = OutboxBatch<T>
    let realm: Realm
    let batchSize: Int

    /// An iterator that hands out the waiting objects in batches, waiting for commits when none are left.
    public func makeAsyncIterator() -> AsyncIterator {
        // Listening starts before the first read, so no commit between a read and the wait is missed.
        AsyncIterator(realm: realm, batchSize: batchSize, commits: realm.store.versions().makeAsyncIterator())
    }

    /// Delivers batches in creation order, waiting for commits when the outbox is empty.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let realm: Realm
        let batchSize: Int
        var commits: AsyncStream<UInt64>.Iterator
        var lastKey = Int64.min

        /// The next batch, waiting for objects to be added when there are none.
        public mutating func next() async throws -> OutboxBatch<T>? {
            while !Task.isCancelled {
                if let batch = try await realm.outboxBatch(T.self, after: lastKey, limit: batchSize) {
                    lastKey = batch.keys.last!
                    return batch
                }
                guard await commits.next() != nil else { return nil }
            }
            return nil
        }
    }
}

/// Objects of one asymmetric class taken from the outbox, oldest first.
public struct OutboxBatch<T: AsymmetricObject>: Sendable {
    /// The objects, frozen as they were created.
    public let objects: [Frozen<T>]
    let keys: [Int64]
    let realm: Realm

    /// Removes these objects from the outbox (and the file) for good: call it once they have
    /// been shipped. Until then they come again from the next outbox.
    ///
    /// ```swift
    /// try await batch.acknowledge()
    /// ```
    public func acknowledge() async throws {
        try await realm.acknowledgeOutbox(T.self, keys: keys)
    }
}
