import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Asymmetric objects (the seed's WeatherSensor): created only with `create`, never deleted,
/// and drained in order from an outbox that survives a restart until acknowledged.
@Suite struct OutboxTests {
    final class Reading: EmbeddedObject {
        @Persisted var unit = ""
    }

    final class WeatherSensor: AsymmetricObject {
        @Persisted(primaryKey: true) var _id: ObjectId
        @Persisted var deviceId: String
        @Persisted var temperatureInFahrenheit: Float
        @Persisted var barometricPressureInHg: Float
        @Persisted var windSpeedInMph: Int
        @Persisted var reading: Reading?
    }

    static func createSensors(_ range: Range<Int>, in realm: Realm) async throws {
        try await realm.asyncWrite { realm in
            for index in range {
                try realm.create(WeatherSensor.self, value: [
                    "_id": ObjectId.generate(), "deviceId": "WX\(index)", "temperatureInFahrenheit": 66.7,
                    "barometricPressureInHg": 29.65, "windSpeedInMph": index, "reading": ["unit": "F"],
                ])
            }
        }
    }

    @Test func batchesComeInOrderAndAcknowledgedOnesLeave() async throws {
        let directory = TemporaryDirectory()
        let url = directory.url()
        do {
            let realm = try await Realm(configuration: Realm.Configuration(fileURL: url))
            try await Self.createSensors(0..<5, in: realm)
            var iterator = realm.outbox(WeatherSensor.self, batchSize: 2).makeAsyncIterator()
            let first = try await iterator.next()!
            #expect(first.objects.map(\.deviceId) == ["WX0", "WX1"])
            #expect(first.objects.map { $0.reading?.unit } == ["F", "F"])
            try await first.acknowledge()
            let second = try await iterator.next()!
            #expect(second.objects.map(\.deviceId) == ["WX2", "WX3"])
            // Not acknowledged: it stays, and comes again after a restart.
            let third = try await iterator.next()!
            #expect(third.objects.map(\.windSpeedInMph) == [4])
            try await third.acknowledge()
            // The outbox waits for new objects.
            let waiting = Task { [realm] in
                var fresh = realm.outbox(WeatherSensor.self, batchSize: 10).makeAsyncIterator()
                _ = try await fresh.next()   // WX2, WX3 (never acknowledged)
                return try await fresh.next()?.objects.map(\.deviceId)
            }
            try await Task.sleep(nanoseconds: 50_000_000)
            try await Self.createSensors(5..<7, in: realm)
            #expect(try await waiting.value == ["WX5", "WX6"])
        }
        let reopened = try await Realm(configuration: Realm.Configuration(fileURL: url))
        var iterator = reopened.outbox(WeatherSensor.self).makeAsyncIterator()
        let remaining = try await iterator.next()!
        #expect(remaining.objects.map(\.deviceId) == ["WX2", "WX3", "WX5", "WX6"])
        try await remaining.acknowledge()
        // Acknowledged objects and the embedded objects they owned are gone from the file.
        let counts = try await reopened.read { realm in
            let snapshot = try realm.freeze().snapshot
            return (try snapshot.objectCount(in: snapshot.table(named: "WeatherSensor")), try snapshot.objectCount(in: snapshot.table(named: "Reading")))
        }
        #expect(counts == (0, 0))
    }

    @Test func asymmetricObjectsCannotBeDeletedOrAdded() async throws {
        let realm = try await inMemoryRealm("outbox")
        let error = await #expect(throws: FloeError.self) {
            try await realm.asyncWrite { realm in
                try realm.create(WeatherSensor.self, value: ["_id": ObjectId.generate(), "deviceId": "A"])
                try realm.delete(WeatherSensor())
            }
        }
        #expect(error?.description.contains("asymmetric objects cannot be deleted") == true)
        // The failed write left nothing in the outbox; cancelling the iterating task ends it.
        let drained = Task { [realm] in
            var count = 0
            for try await batch in realm.outbox(WeatherSensor.self) { count += batch.objects.count }
            return count
        }
        try await Task.sleep(nanoseconds: 20_000_000)
        drained.cancel()
        try await Self.createSensors(0..<1, in: realm)   // wakes the iterator, which sees the cancellation
        let count = try await drained.value
        #expect(count <= 1)
    }

    /// Seed 002's example with the mechanical changes only: the write closure's single
    /// expression is `create`, which for an asymmetric class returns nothing (as in Realm), so
    /// no live object leaves the write.
    @Test func seedExampleCreatesInsideAWrite() async throws {
        let asymmetricRealm = try await inMemoryRealm("outbox-seed")
        try await asymmetricRealm.write { asymmetricRealm in
            try asymmetricRealm.create(WeatherSensor.self, value: [ "_id": ObjectId.generate(), "deviceId": "WX1278UIT", "temperatureInFahrenheit": 66.7, "barometricPressureInHg": 29.65, "windSpeedInMph": 2 ])
        }
        try await asymmetricRealm.write { realm in try realm.create(WeatherSensor.self, value: ["_id": ObjectId.generate(), "deviceId": "WX2"]) }
        var iterator = asymmetricRealm.outbox(WeatherSensor.self).makeAsyncIterator()
        let batch = try #require(try await iterator.next())
        #expect(batch.objects.map(\.deviceId) == ["WX1278UIT", "WX2"])
        #expect(batch.objects.first?.windSpeedInMph == 2)
    }
}
