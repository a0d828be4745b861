import Floe
import Foundation

// A small program that does one object-API workload on a fresh realm, for instruction
// profiles: `valgrind --tool=callgrind --collect-atstart=no --toggle-collect='*measuredW3*'
// .build/release/floe-profile W3` (W1: `'*measuredAdd*'`, C1: `'*measuredAppend*'`). Only the workload's function is
// counted, so building the data set stays out of the profile. No GRDB: Floe alone.

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

func readW3(_ realm: Realm) async throws -> Int { try await realm.read { realm in measuredW3(realm) } }

func run() async throws {
for workload in workloads {
    switch workload {
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
        throw ProfileFailure(description: "unknown workload \(workload); known: W1 W3 W4 W4R W6 W7 C1 C2 C3 N2S N2L N2SEC N2LO")
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
