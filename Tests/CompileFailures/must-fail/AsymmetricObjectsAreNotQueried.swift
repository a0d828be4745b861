// Must NOT compile: asymmetric objects are write-only; they cannot be queried.
// expect-error: no exact matches in call to instance method 'objects'
import Floe

final class Sensor: AsymmetricObject {
    @Persisted var deviceId = ""
}

extension Realm {
    func countSensors() -> Int {
        objects(Sensor.self).count
    }
}
