// Must NOT compile: creating an asymmetric object returns nothing (as in Realm), so no live
// asymmetric object can be read, linked or deleted.
// expect-error: cannot convert value of type '()' to specified type 'Sensor'
import Floe

final class Sensor: AsymmetricObject {
    @Persisted var deviceId = ""
}

extension Realm {
    func recordReading() throws -> String {
        try write {
            let sensor: Sensor = try create(Sensor.self, value: ["deviceId": "WX1"])
            return sensor.deviceId
        }
    }
}
