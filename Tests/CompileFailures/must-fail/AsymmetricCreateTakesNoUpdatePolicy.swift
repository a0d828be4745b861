// Must NOT compile: an asymmetric object is only ever inserted; create takes no update policy.
// expect-error: requires that 'Sensor' inherit from 'Object'
import Floe

final class Sensor: AsymmetricObject {
    @Persisted(primaryKey: true) var deviceId = ""
}

func recordReading(_ realm: Realm) async throws {
    try await realm.write { realm in
        try realm.create(Sensor.self, value: ["deviceId": "WX1"], update: .modified)
    }
}
