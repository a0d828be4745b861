/// The benchmark's data set (DESIGN.md, "Performance targets"): row `i` is the dog
/// `{id: i, name: "dog<i>", age: i % 100, color: one of five, weight: (i % 500)/10 + 1}`.
///
/// Both engines are fed from these functions so that they store exactly the same values.
enum Dog {
    static let colors = ["black", "brown", "white", "golden", "grey"]

    static func name(_ index: Int) -> String { "dog\(index)" }
    static func age(_ index: Int) -> Int { index % 100 }
    static func color(_ index: Int) -> String { colors[index % colors.count] }
    static func weight(_ index: Int) -> Double { Double(index % 500) / 10 + 1 }

    /// The sum of `age` over rows `0..<count`, to check that every scan read every row.
    static func ageSum(count: Int) -> Int64 {
        var total: Int64 = 0
        for index in 0..<count { total += Int64(age(index)) }
        return total
    }
}

/// A small deterministic generator (SplitMix64): every run updates the same rows in the
/// same order, so runs differ only by noise.
struct SplitMix64 {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var mixed = state
        mixed = (mixed ^ (mixed >> 30)) &* 0xBF58_476D_1CE4_E5B9
        mixed = (mixed ^ (mixed >> 27)) &* 0x94D0_49BB_1331_11EB
        return mixed ^ (mixed >> 31)
    }

    mutating func next(below bound: Int) -> Int {
        Int(next() % UInt64(bound))
    }
}
