import Foundation
import Synchronization
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

@Suite struct ObjectIdTests {
    /// Bytes 4–8 (the per-process random part) of an identifier's string.
    private func processPart(_ id: ObjectId) -> Substring {
        id.stringValue.dropFirst(8).prefix(10)
    }

    /// The 3-byte counter at the end of an identifier.
    private func counter(_ id: ObjectId) -> UInt32 {
        UInt32(id.stringValue.suffix(6), radix: 16)!
    }

    @Test func defaultIsAllZeros() {
        let zero = ObjectId()
        #expect(zero.stringValue == "000000000000000000000000")
        #expect(zero.description == zero.stringValue)
        #expect(zero.timestamp == Date(timeIntervalSince1970: 0))
        #expect(zero.storageWords == (0, 0))
        #expect(zero == ObjectId())
    }

    @Test func parsesAndPrintsHex() throws {
        let id = try ObjectId(string: "5f5e1000563412907800002a")
        #expect(id.stringValue == "5f5e1000563412907800002a")
        #expect(id.description == "5f5e1000563412907800002a")
        #expect(id.timestamp == Date(timeIntervalSince1970: 1_600_000_000))
        // Uppercase digits are accepted; the output is always lowercase.
        let upper = try ObjectId(string: "5F5E1000563412907800002A")
        #expect(upper == id)
        #expect(upper.stringValue == "5f5e1000563412907800002a")
        let mixed = try ObjectId(string: "ABCDEFabcdef0123456789Ff")
        #expect(mixed.stringValue == "abcdefabcdef0123456789ff")
        #expect(try ObjectId(string: "ffffffffffffffffffffffff").stringValue == "ffffffffffffffffffffffff")
    }

    @Test(arguments: [
        "",
        "5f5e1000563412907800002",      // 23 digits
        "5f5e1000563412907800002a0",    // 25 digits
        "5f5e100056341290780000zz",
        "5f5e1000 63412907800002a",
        " 5f5e1000563412907800002a",
        "0x5e1000563412907800002a",
        "5f5e1000563412907800002é",     // 24 characters, 25 bytes
        "５f5e1000563412907800002a",     // a fullwidth digit
        "-5f5e100056341290780002a",
    ])
    func rejectsInvalidStrings(_ string: String) {
        let expected = FloeError.invalidValueString(type: "ObjectId", string: string,
                                                    reason: "expected exactly 24 hexadecimal digits")
        #expect(throws: expected) { try ObjectId(string: string) }
        #expect(ObjectId(string) == nil)
    }

    @Test func invalidStringErrorNamesTheString() {
        do {
            _ = try ObjectId(string: "not-an-object-id")
            Issue.record("expected an error")
        } catch {
            #expect("\(error)" == "Invalid ObjectId string 'not-an-object-id': expected exactly 24 hexadecimal digits.")
        }
    }

    @Test func losslessStringConvertible() {
        let id = ObjectId.generate()
        #expect(ObjectId(id.description) == id)
        #expect(ObjectId("5f5e1000563412907800002a")?.stringValue == "5f5e1000563412907800002a")
        #expect(ObjectId("nope") == nil)
    }

    @Test func storageWordsPackTheBytes() throws {
        let id = try ObjectId(string: "0102030405060708090a0b0c")
        #expect(id.storageWords.high == 0x0102_0304_0506_0708)
        #expect(id.storageWords.low == 0x090A_0B0C_0000_0000)
        #expect(ObjectId(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0000_0000) == id)
        #expect(ObjectId(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_0000_0000).stringValue == "0102030405060708090a0b0c")
        // The low 32 bits of `low` are not part of the identifier.
        #expect(ObjectId(high: 0x0102_0304_0506_0708, low: 0x090A_0B0C_FFFF_FFFF) == id)
        var generator = SeededGenerator(seed: 12)
        for _ in 0..<1000 {
            let high = UInt64.random(in: .min ... .max, using: &generator)
            let low = UInt64.random(in: .min ... .max, using: &generator) & 0xFFFF_FFFF_0000_0000
            let id = ObjectId(high: high, low: low)
            #expect(id.storageWords == (high, low))
            #expect(try ObjectId(string: id.stringValue) == id)
        }
    }

    @Test func comparesByBytes() throws {
        let strings = [
            "000000000000000000000000",
            "000000000000000000000001",
            "0000000000000000000000ff",
            "000000000000000000000100",
            "0000000000000000ffffffff",
            "000000000000000100000000",
            "00000000ffffffffffffffff",
            "7fffffffffffffffffffffff",
            "800000000000000000000000",
            "ffffffffffffffffffffffff",
        ]
        let ids = try strings.map { try ObjectId(string: $0) }
        #expect(ids.sorted() == ids)
        #expect(ids.shuffled().sorted() == ids)
        for (index, id) in ids.enumerated() {
            for (otherIndex, other) in ids.enumerated() {
                #expect((id < other) == (index < otherIndex))
                #expect((id == other) == (index == otherIndex))
            }
        }
        // Byte order is string order for lowercase hex.
        var generator = SeededGenerator(seed: 7)
        let random = (0..<200).map { _ in
            ObjectId(high: UInt64.random(in: .min ... .max, using: &generator),
                     low: UInt64.random(in: .min ... .max, using: &generator) << 32)
        }
        #expect(random.sorted().map(\.stringValue) == random.map(\.stringValue).sorted())
    }

    @Test func hashable() throws {
        let a = try ObjectId(string: "5f5e1000563412907800002a")
        let b = try ObjectId(string: "5F5E1000563412907800002A")
        let c = try ObjectId(string: "5f5e1000563412907800002b")
        #expect(Set([a, b, c]).count == 2)
        #expect(a.hashValue == b.hashValue)
    }

    @Test func generateUsesTimeProcessBytesAndCounter() {
        let before = Date().timeIntervalSince1970.rounded(.down)
        let first = ObjectId.generate()
        let second = ObjectId.generate()
        let after = Date().timeIntervalSince1970
        #expect(first != second)
        #expect(first != ObjectId())
        for id in [first, second] {
            #expect(id.timestamp.timeIntervalSince1970 >= before)
            #expect(id.timestamp.timeIntervalSince1970 <= after)
            #expect(id.timestamp.timeIntervalSince1970 == id.timestamp.timeIntervalSince1970.rounded(.down))
        }
        // The five random bytes are chosen once per process.
        #expect(processPart(first) == processPart(second))
        // The counter moves forward (by one, unless other threads generate at the same time).
        let step = (counter(second) &- counter(first)) & 0xFF_FFFF
        #expect(step >= 1 && step < 0x80_0000)
        if first.timestamp == second.timestamp {
            #expect(first < second || step > counter(second))   // smaller unless the counter wrapped
        }
    }

    @Test func generateIsUniqueAcrossThreads() async {
        let perTask = 20_000
        let tasks = 8
        let ids = await withTaskGroup(of: [ObjectId].self) { group in
            for _ in 0..<tasks {
                group.addTask { (0..<perTask).map { _ in ObjectId.generate() } }
            }
            var all: [ObjectId] = []
            for await chunk in group { all += chunk }
            return all
        }
        #expect(ids.count == perTask * tasks)
        #expect(Set(ids).count == perTask * tasks)
        #expect(Set(ids.map(counter)).count == perTask * tasks)
        #expect(Set(ids.map(processPart)).count == 1)
    }

    @Test func generateIsUniqueAcrossDispatchThreads() {
        let perThread = 10_000
        let threads = 8
        let collected = Mutex<[ObjectId]>([])
        DispatchQueue.concurrentPerform(iterations: threads) { _ in
            let chunk = (0..<perThread).map { _ in ObjectId.generate() }
            collected.withLock { $0 += chunk }
        }
        let ids = collected.withLock { $0 }
        #expect(Set(ids).count == perThread * threads)
    }

    @Test func timestampMachineAndProcessInitializer() {
        let date = Date(timeIntervalSince1970: 1_600_000_000.75)
        let a = ObjectId(timestamp: date, machineId: 0x123456, processId: 0x7890)
        let b = ObjectId(timestamp: date, machineId: 0x123456, processId: 0x7890)
        // Seconds big-endian, then machine and process bytes least significant first, as Realm stores them.
        #expect(a.stringValue.hasPrefix("5f5e1000" + "563412" + "9078"))
        #expect(a.timestamp == Date(timeIntervalSince1970: 1_600_000_000))
        #expect(a != b)
        #expect((counter(b) &- counter(a)) & 0xFF_FFFF >= 1)
        // Only the low three machine bytes and two process bytes are used.
        let c = ObjectId(timestamp: date, machineId: 0x7F12_3456, processId: 0x1_7890)
        #expect(c.stringValue.hasPrefix("5f5e10005634129078"))
        let zero = ObjectId(timestamp: Date(timeIntervalSince1970: 0), machineId: 0, processId: 0)
        #expect(zero.stringValue.hasPrefix("000000000000000000"))
        let max = ObjectId(timestamp: Date(timeIntervalSince1970: 4_294_967_295), machineId: -1, processId: -1)
        #expect(max.stringValue.hasPrefix("ffffffffffffffffff"))
        #expect(max.timestamp == Date(timeIntervalSince1970: 4_294_967_295))
    }

    @Test func codableAsString() throws {
        let ids = [ObjectId(), try ObjectId(string: "5f5e1000563412907800002a"), ObjectId.generate()]
        let json = try JSONEncoder().encode(ids)
        let text = String(decoding: json, as: UTF8.self)
        #expect(text == "[\"000000000000000000000000\",\"5f5e1000563412907800002a\",\"\(ids[2].stringValue)\"]")
        #expect(try JSONDecoder().decode([ObjectId].self, from: json) == ids)

        struct Dog: Codable, Equatable {
            var _id: ObjectId
            var name: String
        }
        let dog = Dog(_id: .generate(), name: "Rex")
        #expect(try JSONDecoder().decode(Dog.self, from: JSONEncoder().encode(dog)) == dog)
        #expect(try PropertyListDecoder().decode([ObjectId].self, from: PropertyListEncoder().encode(ids)) == ids)
    }

    @Test func decodingAnInvalidStringFails() {
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([ObjectId].self, from: Data(#"["xyz"]"#.utf8))
        }
        #expect(throws: DecodingError.self) {
            try JSONDecoder().decode([ObjectId].self, from: Data("[12]".utf8))
        }
        do {
            _ = try JSONDecoder().decode([ObjectId].self, from: Data(#"["xyz"]"#.utf8))
        } catch let DecodingError.dataCorrupted(context) {
            #expect(context.debugDescription.contains("'xyz'"))
        } catch {
            Issue.record("unexpected error \(error)")
        }
    }
}
