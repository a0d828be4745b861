// Must NOT compile: asymmetric objects are created with create(_:value:), never added.
// expect-error: requires that 'Sensor' conform to 'Sequence'
import Floe

final class Sensor: AsymmetricObject {
    @Persisted var deviceId = ""
}

extension Realm {
    func addSensor() throws {
        try write { try add(Sensor()) }
    }
}
