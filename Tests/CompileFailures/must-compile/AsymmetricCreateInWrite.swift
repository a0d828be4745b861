// Must compile outside the module (no @testable): seed 002's asymmetric example with the
// mechanical changes only. The write closure's single expression is `create`, which returns
// nothing for an asymmetric class (as in Realm), so no live object leaves the write; `create`
// for an ordinary object still returns it.
import Floe

final class WeatherSensor: AsymmetricObject {
    @Persisted(primaryKey: true) var _id: ObjectId
    @Persisted var deviceId: String
    @Persisted var temperatureInFahrenheit: Float
    @Persisted var barometricPressureInHg: Float
    @Persisted var windSpeedInMph: Int
}

final class Dog: Object {
    @Persisted var name = ""
}

func useRealm(_ asymmetricRealm: Realm) async throws {
    try await asymmetricRealm.write { asymmetricRealm in
        try asymmetricRealm.create(WeatherSensor.self, value: [ "_id": ObjectId.generate(), "deviceId": "WX1278UIT", "temperatureInFahrenheit": 66.7, "barometricPressureInHg": 29.65, "windSpeedInMph": 2 ])
    }
    let name = try await asymmetricRealm.write { realm in
        let dog = try realm.create(Dog.self, value: ["name": "Rex"])
        return dog.name
    }
    print(name)
}

// Inside the realm's actor, with the synchronous write.
extension Realm {
    func recordReading() throws {
        try write { try create(WeatherSensor.self, value: ["_id": ObjectId.generate(), "deviceId": "WX1278UIT"]) }
    }
}
