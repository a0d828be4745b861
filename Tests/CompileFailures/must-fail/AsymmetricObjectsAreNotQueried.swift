// Must NOT compile: asymmetric objects are write-only; they cannot be queried.
// expect-error: requires that 'Sensor' inherit from 'Object'
import Floe

final class Sensor: AsymmetricObject {
    @Persisted var deviceId = ""
}

extension Realm {
    func countSensors() -> Int {
        objects(Sensor.self).count
    }
}
