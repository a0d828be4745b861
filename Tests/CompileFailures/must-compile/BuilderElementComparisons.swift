// Must compile: Realm's builder forms over collections of values and mixed values.
import Floe

final class Player: Object {
    @Persisted var scores: List<Int>
    @Persisted var tags: MutableSet<String>
    @Persisted var prices: Map<String, Double>
    @Persisted var value: AnyRealmValue
}

extension Realm {
    func stars() throws -> Results<Player> {
        try objects(Player.self).where {
            ($0.scores > 1000 || $0.scores <= 0 || $0.scores == 7 || $0.scores != 8 || $0.scores >= 3 || $0.scores < 2)
                && ($0.tags == "blue" || $0.tags != "red" || $0.tags > "a")
                && ($0.prices > 9.5 || $0.prices == 1 || $0.prices <= 2)
                && ($0.value > .int(1) || $0.value <= .double(2.5) || $0.value >= .decimal128(1) || $0.value < .string("z"))
        }
    }
}
