import Floe
import Foundation

// floe-costs: the projection and query workloads (P1, P2, Q2, Q3) at a tenth of floe-bench's
// size, and K1, the copy compaction makes, each in a function of its own, for instruction
// counts that do not depend on the machine's load:
//
//     valgrind --tool=callgrind --callgrind-out-file=costs.out .build/release/floe-costs
//     callgrind_annotate --inclusive=yes costs.out | grep cost
//
// Each `cost…` function's inclusive count is one workload; a pair (`…Object`, `…Projection`)
// is the comparison floe-bench times. Without valgrind it prints each workload's median
// thread CPU time (not wall time: a descheduled thread accrues none). Release builds only.

final class CostDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var weight = 0.0
}

final class CostDogProjection: Projection<CostDog> {
    @Projected(\CostDog.age) var age
    @Projected(\CostDog.name) var title
}

final class CostContact: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    var firstLetter: String { name.first.map { String($0) } ?? "" }
}

let dogCount = 10_000
let reads = 100_000

@inline(never) func costP1Object(_ dog: CostDog) -> Int {
    var total = 0
    for _ in 0..<reads { total &+= dog.age }
    return total
}

@inline(never) func costP1Projection(_ dog: CostDogProjection) -> Int {
    var total = 0
    for _ in 0..<reads { total &+= dog.age }
    return total
}

@inline(never) func costP2Object(_ dogs: Results<CostDog>) -> Int {
    dogs.reduce(0) { $0 + $1.age }
}

@inline(never) func costP2Projection(_ dogs: ProjectionResults<CostDogProjection>) -> Int {
    dogs.reduce(0) { $0 + $1.age }
}

@inline(never) func costQ2SortAndRead(_ dogs: Results<CostDog>) throws -> Double {
    var checksum = 0.0
    for dog in try dogs.sorted(byKeyPath: "weight") { checksum += dog.weight }
    return checksum
}

@inline(never) func costQ2SortOnly(_ dogs: Results<CostDog>) throws -> Int {
    // The order computed, the first object read: the sort without the per-object reads.
    let sorted = try dogs.sorted(byKeyPath: "weight")
    return sorted.first?.id ?? -1
}

@inline(never) func costQ2ReadInKeyOrder(_ dogs: Results<CostDog>) -> Double {
    var checksum = 0.0
    for dog in dogs { checksum += dog.weight }
    return checksum
}

@inline(never) func costQ3Sections(_ contacts: Results<CostContact>) throws -> Int {
    let sectioned = try contacts.sectioned(by: \.firstLetter)
    return sectioned.allKeys.count + sectioned.reduce(0) { $0 + $1.count }
}

/// K1: a compacted copy of the file (the 10,000 dogs and 10,000 contacts), the copy automatic
/// compaction makes: every node read and checked, written again.
@inline(never) func costK1WriteCopy(_ realm: Realm, to url: URL) throws {
    try realm.writeCopy(toFile: url)
}

/// CPU time of the calling thread, which a descheduled thread does not accrue (wall time on a
/// loaded machine does).
func threadNanoseconds() -> Double {
    var time = timespec()
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &time)
    return Double(time.tv_sec) * 1e9 + Double(time.tv_nsec)
}

/// The median thread CPU time of `body` over `rounds` runs.
func cpuTime<T>(rounds: Int = 7, _ body: () throws -> T) rethrows -> (Double, T) {
    var samples: [Double] = []
    var result: T? = nil
    for _ in 0..<rounds {
        let start = threadNanoseconds()
        result = try body()
        samples.append(threadNanoseconds() - start)
    }
    return (samples.sorted()[samples.count / 2], result!)
}

func run() async throws {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("floe-costs-\(getpid())")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let realm = try await Realm(configuration: Realm.Configuration(
        fileURL: directory.appendingPathComponent("costs.floe"), objectTypes: [CostDog.self, CostContact.self], durability: .none))
    let letters = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZÄÉÖÜ")
    try await realm.write { realm in
        for index in 0..<dogCount {
            try realm.create(CostDog.self, value: ["id": index, "name": "dog\(index)", "age": index % 100, "weight": Double((index * 7919) % 500) / 10 + 1])
            try realm.create(CostContact.self, value: ["id": index, "name": "\(letters[(index * 31) % letters.count])contact\(index)"])
        }
    }
    let lines = try await realm.read { realm -> [String] in
        let dog = realm.object(ofType: CostDog.self, forPrimaryKey: 7)!
        let projected = realm.object(ofType: CostDogProjection.self, forPrimaryKey: 7)!
        let dogs = realm.objects(CostDog.self)
        let projections = realm.objects(CostDogProjection.self)
        let contacts = realm.objects(CostContact.self)
        func line(_ name: String, _ measured: (Double, some Any)) -> String {
            String(format: "%@ %.3f ms (%@)", name, measured.0 / 1e6, "\(measured.1)")
        }
        return [
            line("P1 object", cpuTime { costP1Object(dog) }),
            line("P1 projection", cpuTime { costP1Projection(projected) }),
            line("P2 object", cpuTime { costP2Object(dogs) }),
            line("P2 projection", cpuTime { costP2Projection(projections) }),
            line("Q2 sort and read", try cpuTime { try costQ2SortAndRead(dogs) }),
            line("Q2 sort only", try cpuTime { try costQ2SortOnly(dogs) }),
            line("Q2 read in key order", cpuTime { costQ2ReadInKeyOrder(dogs) }),
            line("Q3 sections", try cpuTime { try costQ3Sections(contacts) }),
        ]
    }
    let copyURL = directory.appendingPathComponent("copy.floe")
    let copied = try cpuTime {
        try? FileManager.default.removeItem(at: copyURL)
        try costK1WriteCopy(realm, to: copyURL)
        return (try? FileManager.default.attributesOfItem(atPath: copyURL.path)[.size] as? Int) ?? 0
    }
    print((lines + [String(format: "K1 write a compacted copy %.3f ms (%d bytes)", copied.0 / 1e6, copied.1)]).joined(separator: "\n"))
}

// No `await` at the top level: the main thread waits on a semaphore rather than in
// dispatch's main loop, which valgrind cannot follow.
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do { try await run() } catch { print("floe-costs: \(error)") }
    finished.signal()
}
finished.wait()
