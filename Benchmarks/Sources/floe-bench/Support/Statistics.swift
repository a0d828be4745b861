/// Order statistics over a set of measurements.
///
/// Medians and percentiles rather than means: one descheduled run on a shared 2-core
/// machine must not move the reported figure.
struct Samples {
    private(set) var values: [Double] = []

    init(_ values: [Double] = []) {
        self.values = values
    }

    mutating func append(_ value: Double) {
        values.append(value)
    }

    var count: Int { values.count }

    var median: Double { percentile(50) }

    /// The nearest-rank percentile (`percent` in 0...100).
    func percentile(_ percent: Double) -> Double {
        precondition(!values.isEmpty, "a percentile of no samples")
        let sorted = values.sorted()
        let rank = Int((percent / 100 * Double(sorted.count)).rounded(.up))
        return sorted[min(max(rank, 1), sorted.count) - 1]
    }

    var minimum: Double { values.min() ?? 0 }
    var maximum: Double { values.max() ?? 0 }
}
