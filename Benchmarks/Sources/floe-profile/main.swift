@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage
import Foundation

// A small program that does one object-API workload on a fresh realm, for instruction
// profiles: `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredW3*'
// .build/release/floe-profile W3` (W1: `'*measuredAdd*'`, C1: `'*measuredAppend*'`). Only the workload's function is
// counted, so building the data set stays out of the profile. No GRDB: Floe alone.
// S1 (the engine's one-dog commit into 1M dogs with 10 snapshots held): `'*measuredS1Commits*'`
// counts 1,000 commits right after open (leaves read on demand), `'*measuredS1Resident*'`
// 1,000 more with every leaf decoded.

final class ProfileDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted var age = 0
    @Persisted var color = ""
    @Persisted var weight = 0.0

    convenience init(index: Int) {
        self.init()
        id = index
        name = "dog\(index)"
        age = index % 100
        color = ["black", "brown", "white", "golden", "grey"][index % 5]
        weight = Double(index % 500) / 10 + 1
    }
}

final class ProfilePerson: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var name = ""
    @Persisted(originProperty: "owner") var dogs: LinkingObjects<ProfileLinkedDog>
}

final class ProfileLinkedDog: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var owner: ProfilePerson?
}

final class ProfileDogList: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var dogs: List<ProfileDog>
}

final class ProfileNumbers: Object {
    @Persisted(primaryKey: true) var id = 0
    @Persisted var numbers: List<Int>
}

struct ProfileFailure: Error, CustomStringConvertible {
    let description: String
}

let count = 100_000
let arguments = CommandLine.arguments.dropFirst()
let workloads = arguments.isEmpty ? ["W1", "W3", "W4", "W6", "W7", "C1", "C2", "C3"] : Array(arguments)
let directory = FileManager.default.temporaryDirectory.appendingPathComponent("floe-profile-\(getpid())")
try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
defer { try? FileManager.default.removeItem(at: directory) }

func openRealm(_ name: String) async throws -> Realm {
    try await Realm(configuration: Realm.Configuration(
        fileURL: directory.appendingPathComponent(name), objectTypes: [ProfileDog.self, ProfilePerson.self, ProfileLinkedDog.self, ProfileNumbers.self, ProfileDogList.self],
        durability: .none))
}

func elapsed(_ label: String, _ body: () async throws -> Void) async rethrows {
    let start = DispatchTime.now().uptimeNanoseconds
    try await body()
    let nanoseconds = DispatchTime.now().uptimeNanoseconds - start
    print("\(label): \(String(format: "%.2f", Double(nanoseconds) / 1e6)) ms")
}

@inline(never) func measuredW1(_ realm: Realm, count: Int) async throws -> Double {
    // The objects are made inside the write's closure (which must not share them), and only
    // the adding is measured.
    try await realm.write { realm in
        let dogs = (0..<count).map(ProfileDog.init(index:))
        let start = DispatchTime.now().uptimeNanoseconds
        try measuredAdd(realm, dogs)
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6
    }
}

@inline(never) func measuredAdd(_ realm: borrowing Realm.Transaction, _ dogs: [ProfileDog]) throws {
    for dog in dogs { try realm.add(dog) }
}

@inline(never) func measuredW7(_ realm: borrowing Realm.Transaction) throws {
    try realm.delete(realm.objects(ProfileDog.self))
}

@inline(never) func measuredAppend(_ list: List<Int>, _ values: [Int]) {
    list.append(objectsIn: values)
}

// The `measured…` functions are synchronous and run inside the realm's read or write, so a
// callgrind toggle on their names counts the workload and nothing around it.

@inline(never) func measuredW3(_ realm: borrowing Realm.ReadTransaction) -> Int {
    realm.objects(ProfileDog.self).reduce(0) { $0 + $1.age }
}

@inline(never) func measuredW4(_ realm: borrowing Realm.ReadTransaction) -> Int {
    var length = 0
    for id in 0..<count { length += realm.object(ofType: ProfileDog.self, forPrimaryKey: id)?.name.utf8.count ?? 0 }
    return length
}

/// W4 with the keys in a scrambled order (7919 is prime, so every key comes once): almost
/// every lookup lands in another leaf than the one before and descends from the root.
@inline(never) func measuredW4Scrambled(_ realm: borrowing Realm.ReadTransaction) -> Int {
    var length = 0
    for index in 0..<count { length += realm.object(ofType: ProfileDog.self, forPrimaryKey: (index &* 7919) % count)?.name.utf8.count ?? 0 }
    return length
}

@inline(never) func measuredW6(_ realm: borrowing Realm.Transaction) {
    for dog in realm.objects(ProfileDog.self) { dog.age += 1 }
}

@inline(never) func measuredC2(_ realm: borrowing Realm.ReadTransaction) -> Int {
    var sum = 0
    for value in realm.object(ofType: ProfileNumbers.self, forPrimaryKey: 0)!.numbers { sum &+= value }
    return sum
}

@inline(never) func measuredC3(_ realm: borrowing Realm.ReadTransaction) -> Int {
    var length = 0
    for dog in realm.objects(ProfileLinkedDog.self) { length += dog.owner?.name.utf8.count ?? 0 }
    return length
}

/// N2S's writes: `changed` dogs spread over the table take an age of at least 50 and a new
/// weight, so they enter `filter("age >= 50").sorted(byKeyPath: "weight")` or move in it.
func moveDogs(_ realm: borrowing Realm.Transaction, changed: Int, round: Int) {
    let stride = count / changed
    for index in 0..<changed {
        let dog = realm.object(ofType: ProfileDog.self, forPrimaryKey: 3 + index * stride)!
        dog.age = 50 + (round + index) % 50
        dog.weight = Double((round * 7 + index * 13) % 500) / 10 + 1
    }
}

/// N2L's writes: 1% of the list's positions, each replaced by another dog.
func replaceDogs(_ realm: borrowing Realm.Transaction, round: Int) {
    let owner = realm.object(ofType: ProfileDogList.self, forPrimaryKey: 0)!
    for index in 0..<(count / 100) {
        let position = (index * 100 + round) % count
        owner.dogs[position] = realm.object(ofType: ProfileDog.self, forPrimaryKey: (position + round + 1) % count)!
    }
}

/// S1's table, as `floe-bench` builds it: the object key equal to `id`.
let s1Spec = TableSpec(name: "Dog", columns: [
    ColumnSpec(name: "id", type: .int, isPrimaryKey: true),
    ColumnSpec(name: "name", type: .string),
    ColumnSpec(name: "age", type: .int),
    ColumnSpec(name: "color", type: .string),
    ColumnSpec(name: "weight", type: .double),
])
let s1AgeColumn = s1Spec.columnIndex(named: "age")!

/// One-dog age changes, each its own commit, at keys spread over the table.
func s1Commits(_ store: Store, _ dogs: TableHandle, count: Int, seed: Int) throws {
    for index in 0..<count {
        let key = Int64((index &* 7919 &+ seed) % 1_000_000)
        let transaction = try store.beginWrite()
        try transaction.setValue(.int(100 + key % 100), in: dogs, key: key, column: s1AgeColumn)
        try transaction.commit()
    }
}

@inline(never) func measuredS1Commits(_ store: Store, _ dogs: TableHandle) throws { try s1Commits(store, dogs, count: 1_000, seed: 1) }
@inline(never) func measuredS1Resident(_ store: Store, _ dogs: TableHandle) throws { try s1Commits(store, dogs, count: 1_000, seed: 2) }

func runS1() throws {
    let path = directory.appendingPathComponent("s1.floe").path
    do {
        let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
        let transaction = try store.beginWrite()
        let dogs = try transaction.createTable(s1Spec)
        let colors = ["black", "brown", "white", "golden", "grey"]
        for index in 0..<1_000_000 {
            try transaction.insertObject(into: dogs, key: Int64(index), values: [
                .int(Int64(index)), .string("dog\(index)"), .int(Int64(index % 100)), .string(colors[index % 5]),
                .double(Double(index % 500) / 10 + 1)])
        }
        try transaction.commit()
        store.close()
    }
    let store = try Store.open(path: path, options: StoreOptions(durability: .none, compactsAutomatically: false))
    defer { store.close() }
    let dogs = try store.snapshot().table(named: "Dog")
    var snapshots: [Snapshot] = []
    for version in 0..<10 {
        snapshots.append(try store.snapshot())
        let transaction = try store.beginWrite()
        try transaction.setValue(.int(Int64(version)), in: dogs, key: 424_242, column: s1AgeColumn)
        try transaction.commit()
    }
    let start = DispatchTime.now().uptimeNanoseconds
    try measuredS1Commits(store, dogs)
    print("S1 1,000 commits, leaves on demand: \(String(format: "%.2f", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e3 / 1_000)) µs each")
    _ = try store.snapshot().sumOfIntegers(in: dogs, column: s1AgeColumn)
    let residentStart = DispatchTime.now().uptimeNanoseconds
    try measuredS1Resident(store, dogs)
    print("S1 1,000 commits, resident: \(String(format: "%.2f", Double(DispatchTime.now().uptimeNanoseconds - residentStart) / 1e3 / 1_000)) µs each")
    guard store.activeVersionCount == 11 else { throw ProfileFailure(description: "S1: \(store.activeVersionCount) active versions") }
    withExtendedLifetime(snapshots) {}
}

// MARK: W8's breakdown (wall time, not instructions: valgrind runs threads one at a time)

extension Realm {
    /// `count` one-dog writes inside the actor, each its own transaction and commit: the actor's
    /// own work per write, without hops, waits or other tasks.
    func addDogsOneByOne(from first: Int, count: Int) throws {
        for index in first..<first + count { try write { try add(ProfileDog(index: index)) } }
    }

    /// As ``addDogsOneByOne(from:count:)``, with primary keys in the order W8's tasks commit
    /// them: round-robin over `tasks` runs of consecutive keys.
    @inline(never)
    func measuredW8Commits(tasks: Int, count: Int) throws {
        let perTask = count / tasks
        for index in 0..<count {
            let key = (index % tasks) * perTask + index / tasks
            try write { try add(ProfileDog(index: key)) }
        }
    }
}

/// W8 and what it is made of, each as commits per second and microseconds per commit:
/// `inside` one-dog writes run inside the actor (durability `.none`: no sync); `one task` the
/// same writes awaited one after another from outside (`.none`: the hops to the actor and back);
/// `100 tasks` awaited by 100 tasks at once (`.none`: the hops under contention); `W8` the
/// benchmark itself (`.full`: each write also waits for a sync round that covers it).
func runW8Breakdown(tasks: Int, writesPerTask: Int, parts: Set<String> = ["inside", "serial", "unsynced", "durable"]) async throws {
    let total = tasks * writesPerTask
    func report(_ label: String, _ nanoseconds: UInt64) {
        let perCommit = Double(nanoseconds) / Double(total)
        print("\(label): \(Int((1e9 / perCommit).rounded())) commits/s, \(String(format: "%.1f", perCommit / 1e3)) µs a commit")
    }
    func open(_ name: String, _ durability: Realm.Durability) async throws -> Realm {
        try await Realm(configuration: Realm.Configuration(
            fileURL: directory.appendingPathComponent(name), objectTypes: [ProfileDog.self], durability: durability))
    }
    func concurrently(_ realm: Realm) async throws -> UInt64 {
        let start = DispatchTime.now().uptimeNanoseconds
        try await withThrowingTaskGroup(of: Void.self) { group in
            for task in 0..<tasks {
                group.addTask {
                    for index in 0..<writesPerTask {
                        let dog = ProfileDog(index: task * writesPerTask + index)
                        try await realm.asyncWrite { realm in try realm.add(dog) }
                    }
                }
            }
            try await group.waitForAll()
        }
        return DispatchTime.now().uptimeNanoseconds - start
    }
    func check(_ realm: Realm) async throws {
        let stored = try await realm.read { realm in realm.objects(ProfileDog.self).count }
        guard stored == total else { throw ProfileFailure(description: "W8 stored \(stored) dogs, expected \(total)") }
    }

    if parts.contains("inside") {
    let inside = try await open("w8-inside.realm", .none)
    let start = DispatchTime.now().uptimeNanoseconds
    try await inside.addDogsOneByOne(from: 0, count: total)
    report("inside the actor, .none", DispatchTime.now().uptimeNanoseconds - start)
    try await check(inside)
    }
    if parts.contains("interleaved") {
        let inside = try await open("w8-interleaved.realm", .none)
        let start = DispatchTime.now().uptimeNanoseconds
        try await inside.measuredW8Commits(tasks: tasks, count: total)
        report("inside the actor, keys interleaved as W8's tasks commit them, .none", DispatchTime.now().uptimeNanoseconds - start)
        try await check(inside)
    }
    if parts.contains("serial") {

    let serial = try await open("w8-serial.realm", .none)
    let start = DispatchTime.now().uptimeNanoseconds
    for index in 0..<total {
        let dog = ProfileDog(index: index)
        try await serial.asyncWrite { realm in try realm.add(dog) }
    }
    report("one task awaiting, .none", DispatchTime.now().uptimeNanoseconds - start)
    try await check(serial)
    }
    if parts.contains("unsynced") {

    let unsynced = try await open("w8-unsynced.realm", .none)
    report("\(tasks) tasks awaiting, .none", try await concurrently(unsynced))
    try await check(unsynced)
    }
    if parts.contains("durable") {

    let durable = try await open("w8-durable.realm", .full)
    report("W8: \(tasks) tasks awaiting, .full", try await concurrently(durable))
    try await check(durable)
    }
}

func readW3(_ realm: Realm) async throws -> Int { try await realm.read { realm in measuredW3(realm) } }

func run() async throws {
for workload in workloads {
    switch workload {
    case "S1":
        try runS1()
    case "W8":
        try await runW8Breakdown(tasks: 100, writesPerTask: 1_000)
    case "W8-inside", "W8-interleaved", "W8-serial", "W8-unsynced", "W8-durable":
        try await runW8Breakdown(tasks: 100, writesPerTask: 1_000, parts: [String(workload.dropFirst(3))])
    case "W1":
        let realm = try await openRealm("w1.realm")
        let milliseconds = try await measuredW1(realm, count: count)
        print("W1 add 100k: \(String(format: "%.2f", milliseconds)) ms")
    case "W3", "W4", "W4R", "W6":
        let realm = try await openRealm("\(workload).realm")
        _ = try await measuredW1(realm, count: count)
        let expected = (0..<count).reduce(0) { $0 + $1 % 100 }
        _ = try await readW3(realm)   // leaves decoded once, outside the measurement
        if workload == "W3" {
            try await elapsed("W3 iterate 100k, sum age") {
                let sum = try await readW3(realm)
                guard sum == expected else { throw ProfileFailure(description: "W3 summed \(sum), expected \(expected)") }
            }
        } else if workload == "W4" {
            let expectedLength = (0..<count).reduce(0) { $0 + "dog\($1)".utf8.count }
            try await elapsed("W4 100k primary-key lookups") {
                let length = try await realm.read { realm in measuredW4(realm) }
                guard length == expectedLength else { throw ProfileFailure(description: "W4 read \(length) bytes of names, expected \(expectedLength)") }
            }
        } else if workload == "W4R" {
            let expectedLength = (0..<count).reduce(0) { $0 + "dog\($1)".utf8.count }
            try await elapsed("W4R 100k primary-key lookups, scrambled keys") {
                let length = try await realm.read { realm in measuredW4Scrambled(realm) }
                guard length == expectedLength else { throw ProfileFailure(description: "W4R read \(length) bytes of names, expected \(expectedLength)") }
            }
        } else {
            try await elapsed("W6 age += 1 on 100k") { try await realm.write { realm in measuredW6(realm) } }
            let sum = try await readW3(realm)
            guard sum == expected + count else { throw ProfileFailure(description: "W6 left a sum of \(sum), expected \(expected + count)") }
        }
    case "W7":
        let realm = try await openRealm("w7.realm")
        _ = try await measuredW1(realm, count: count)
        try await elapsed("W7 delete(objects) of 100k") { try await realm.write { realm in try measuredW7(realm) } }
        let left = try await realm.read { realm in realm.objects(ProfileDog.self).count }
        guard left == 0 else { throw ProfileFailure(description: "W7 left \(left) dogs") }
    case "C1":
        let realm = try await openRealm("c1.realm")
        try await realm.write { realm in
            let owner = ProfileNumbers()
            owner.id = 0
            try realm.add(owner)
        }
        let values = (0..<1_000_000).map { ($0 * 7919) % 1_000_003 }
        try await elapsed("C1 append 1M ints to a list") {
            try await realm.write { realm in measuredAppend(realm.object(ofType: ProfileNumbers.self, forPrimaryKey: 0)!.numbers, values) }
        }
        let counted = try await realm.read { realm in realm.object(ofType: ProfileNumbers.self, forPrimaryKey: 0)!.numbers.count }
        guard counted == 1_000_000 else { throw ProfileFailure(description: "C1 stored \(counted) elements") }
    case "C2":
        let realm = try await openRealm("c2.realm")
        try await realm.write { realm in
            let owner = ProfileNumbers()
            owner.id = 0
            try realm.add(owner)
            owner.numbers.append(objectsIn: (0..<1_000_000).map { ($0 * 7919) % 1_000_003 })
        }
        let expected = (0..<1_000_000).reduce(0) { $0 &+ ($1 * 7919) % 1_000_003 }
        _ = try await realm.read { realm in measuredC2(realm) }
        try await elapsed("C2 iterate a 1M-int list") {
            let sum = try await realm.read { realm in measuredC2(realm) }
            guard sum == expected else { throw ProfileFailure(description: "C2 summed \(sum), expected \(expected)") }
        }
    case "C3":
        let realm = try await openRealm("c3.realm")
        try await realm.write { realm in
            for id in 0..<1000 {
                let person = ProfilePerson()
                person.id = id
                person.name = "person\(id)"
                try realm.add(person)
            }
            for id in 0..<count {
                let dog = ProfileLinkedDog()
                dog.id = id
                dog.owner = realm.object(ofType: ProfilePerson.self, forPrimaryKey: (id * 7919) % 1000)
                try realm.add(dog)
            }
        }
        let expected = (0..<count).reduce(0) { $0 + "person\(($1 * 7919) % 1000)".utf8.count }
        _ = try await realm.read { realm in measuredC3(realm) }
        try await elapsed("C3 follow 100k links") {
            let length = try await realm.read { realm in measuredC3(realm) }
            guard length == expected else { throw ProfileFailure(description: "C3 read \(length) bytes of names, expected \(expected)") }
        }
    case "N2S":
        // The stream's update is computed in the consumer's `next()`: profile it with
        // `--toggle-collect='*IncrementalResults*advance*'` (or the iterator's `next`).
        let realm = try await openRealm("n2s.realm")
        _ = try await measuredW1(realm, count: count)
        let stream = try await realm.read { realm in try realm.objects(ProfileDog.self).filter("age >= 50").sorted(byKeyPath: "weight").changes }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        for round in 0..<20 {
            try await realm.write { realm in moveDogs(realm, changed: count / 100, round: round) }
            let start = DispatchTime.now().uptimeNanoseconds
            guard case .update(let dogs, _, _, _)? = await iterator.next() else { throw ProfileFailure(description: "N2S: no update") }
            if round % 5 == 0 { print("N2S update \(round): \(String(format: "%.2f", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)) ms, \(dogs.count) dogs") }
        }
    case "N2L":
        let realm = try await openRealm("n2l.realm")
        _ = try await measuredW1(realm, count: count)
        try await realm.write { realm in
            let owner = ProfileDogList()
            owner.id = 0
            try realm.add(owner)
            for id in 0..<count { owner.dogs.append(realm.object(ofType: ProfileDog.self, forPrimaryKey: id)!) }
        }
        let stream = try await realm.read { realm in try realm.object(ofType: ProfileDogList.self, forPrimaryKey: 0)!.dogs.changes }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        for round in 0..<20 {
            try await realm.write { realm in replaceDogs(realm, round: round) }
            let start = DispatchTime.now().uptimeNanoseconds
            guard case .update(_, _, _, let modifications)? = await iterator.next() else { throw ProfileFailure(description: "N2L: no update") }
            if round % 5 == 0 { print("N2L update \(round): \(String(format: "%.2f", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)) ms, \(modifications.count) modified") }
        }
    case "N2SEC":
        // Sectioned results (100k dogs by color, in name order) after 1% of the dogs change color.
        let realm = try await openRealm("n2sec.realm")
        _ = try await measuredW1(realm, count: count)
        let stream = try await realm.read { realm in try realm.objects(ProfileDog.self).sorted(byKeyPath: "name").sectioned(by: \.color).changes }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        let colors = ["black", "brown", "white", "golden", "grey"]
        for round in 0..<20 {
            try await realm.write { realm in
                for index in 0..<(count / 100) {
                    realm.object(ofType: ProfileDog.self, forPrimaryKey: 3 + index * 100)!.color = colors[(round + index) % 5]
                }
            }
            let start = DispatchTime.now().uptimeNanoseconds
            guard case .update(let sections, _, _, _, _, _)? = await iterator.next() else { throw ProfileFailure(description: "N2SEC: no update") }
            if round % 5 == 0 { print("N2SEC update \(round): \(String(format: "%.2f", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)) ms, \(sections.count) sections") }
        }
    case "N2LO":
        // Linking objects: 100k dogs own by one person; each write moves 1% to another and back.
        let realm = try await openRealm("n2lo.realm")
        try await realm.write { realm in
            for id in 0..<2 {
                let person = ProfilePerson()
                person.id = id
                try realm.add(person)
            }
            let owner = realm.object(ofType: ProfilePerson.self, forPrimaryKey: 0)
            for id in 0..<count {
                let dog = ProfileLinkedDog()
                dog.id = id
                dog.owner = owner
                try realm.add(dog)
            }
        }
        let stream = try await realm.read { realm in try realm.object(ofType: ProfilePerson.self, forPrimaryKey: 0)!.dogs.changes }
        var iterator = stream.makeAsyncIterator()
        _ = await iterator.next()
        for round in 0..<20 {
            try await realm.write { realm in
                let target = realm.object(ofType: ProfilePerson.self, forPrimaryKey: round % 2 == 0 ? 1 : 0)
                for index in 0..<(count / 100) { realm.object(ofType: ProfileLinkedDog.self, forPrimaryKey: 5 + index * 100)!.owner = target }
            }
            let start = DispatchTime.now().uptimeNanoseconds
            guard case .update(let dogs, _, _, _)? = await iterator.next() else { throw ProfileFailure(description: "N2LO: no update") }
            if round % 5 == 0 { print("N2LO update \(round): \(String(format: "%.2f", Double(DispatchTime.now().uptimeNanoseconds - start) / 1e6)) ms, \(dogs.count) dogs") }
        }
    default:
        throw ProfileFailure(description: "unknown workload \(workload); known: S1 W8 W1 W3 W4 W4R W6 W7 C1 C2 C3 N2S N2L N2SEC N2LO")
    }
}
}

// The main thread waits on a semaphore rather than parking in the concurrency runtime's main
// loop, whose `sigsuspend` valgrind cannot run.
let finished = DispatchSemaphore(value: 0)
Task.detached {
    do {
        try await run()
    } catch {
        print("floe-profile: \(error)")
        exit(1)
    }
    finished.signal()
}
finished.wait()
