/// Repetition schemes for timed workloads.
enum Runs {
    /// Measures Floe and the peer alternately for `rounds` rounds, swapping which side goes
    /// first each round so that neither always inherits the caches, page cache or CPU
    /// frequency the other left behind. Each closure returns the nanoseconds it measured
    /// (its own setup excluded).
    static func alternating(rounds: Int, floe: @escaping () throws -> Double, peer: @escaping () throws -> Double) throws -> (floe: Samples, peer: Samples) {
        let samples = try interleaved(rounds: rounds, [floe, peer])
        return (samples[0], samples[1])
    }

    /// Measures each body once per round, reversing their order every other round.
    static func interleaved(rounds: Int, _ bodies: [() throws -> Double]) throws -> [Samples] {
        var samples = Array(repeating: Samples(), count: bodies.count)
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? Array(bodies.indices) : bodies.indices.reversed()
            for index in order { samples[index].append(try bodies[index]()) }
        }
        return samples
    }

    /// ``alternating(rounds:floe:peer:)`` for bodies that await (the object API's realm is an actor).
    static func alternating(rounds: Int, floe: @escaping () async throws -> Double, peer: @escaping () async throws -> Double) async throws -> (floe: Samples, peer: Samples) {
        let samples = try await interleaved(rounds: rounds, [floe, peer])
        return (samples[0], samples[1])
    }

    /// ``interleaved(rounds:_:)`` for bodies that await.
    static func interleaved(rounds: Int, _ bodies: [() async throws -> Double]) async throws -> [Samples] {
        var samples = Array(repeating: Samples(), count: bodies.count)
        for round in 0..<rounds {
            let order = round.isMultiple(of: 2) ? Array(bodies.indices) : bodies.indices.reversed()
            for index in order { samples[index].append(try await bodies[index]()) }
        }
        return samples
    }

    /// Measures `body` `rounds` times.
    static func repeated(rounds: Int, _ body: () throws -> Double) rethrows -> Samples {
        var samples = Samples()
        for _ in 0..<rounds { samples.append(try body()) }
        return samples
    }
}

/// A benchmark run found a wrong result: the figures around it cannot be trusted.
struct BenchmarkFailure: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) {
        self.description = description
    }
}
