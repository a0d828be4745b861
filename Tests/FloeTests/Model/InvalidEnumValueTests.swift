import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// A stored raw value that names no case of a `PersistableEnum` (written by a build whose enum
/// had more cases; here by a class stored under the same name with plain raw-value properties)
/// is a typed error through the same deferred mechanism as damaged data: the enclosing `read { }`
/// or write throws it naming the class, the property and the value, `checkIntegrity()` reports
/// it, and it never reads as some case.
@Suite struct InvalidEnumValueTests {
    enum Mood: String, PersistableEnum {
        case calm, cheerful
    }

    enum Level: Int, PersistableEnum {
        case low = 1, high = 2
    }

    /// What the app declares today.
    final class Board: Object {
        override class func className() -> String { "EnumBoard" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var mood = Mood.cheerful
        @Persisted var optionalMood: Mood?
        @Persisted var level = Level.high
        @Persisted var moods: List<Mood>
        @Persisted var moodSet: MutableSet<Mood>
        @Persisted var moodMap: Map<String, Mood>
        @Persisted var optionalMoodMap: Map<String, Mood?>
        @Persisted var note = ""
    }

    /// The same stored class, written with the raw values (as a build with more cases would).
    final class RawBoard: Object {
        override class func className() -> String { "EnumBoard" }
        @Persisted(primaryKey: true) var id = 0
        @Persisted var mood = "cheerful"
        @Persisted var optionalMood: String?
        @Persisted var level = 2
        @Persisted var moods: List<String>
        @Persisted var moodSet: MutableSet<String>
        @Persisted var moodMap: Map<String, String>
        @Persisted var optionalMoodMap: Map<String, String?>
        @Persisted var note = ""
    }

    /// A file holding board 1, every property valid, and board 2, whose `damaged` properties
    /// hold raw values that name no case.
    private static func makeFile(_ directory: TemporaryDirectory, damaged: Set<String>) async throws -> URL {
        let url = directory.url()
        let realm = try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [RawBoard.self]))
        func pick<T>(_ name: String, _ valid: T, _ invalid: T) -> T { damaged.contains(name) ? invalid : valid }
        try await realm.write { realm in
            _ = try realm.create(RawBoard.self, value: ["id": 1, "mood": "calm", "optionalMood": "calm", "level": 1,
                                                        "moods": ["calm", "cheerful"], "moodSet": ["calm"],
                                                        "moodMap": ["a": "calm"], "optionalMoodMap": ["a": "cheerful", "b": nil as String?]])
            _ = try realm.create(RawBoard.self, value: [
                "id": 2,
                "mood": pick("mood", "calm", "furious"),
                "optionalMood": pick("optionalMood", "calm", "sulky"),
                "level": pick("level", 1, 7),
                "moods": pick("moods", ["calm"], ["calm", "livid"]),
                "moodSet": pick("moodSet", ["calm"], ["cheerful", "glum"]),
                "moodMap": pick("moodMap", ["a": "calm"], ["a": "calm", "b": "irate"]),
                "optionalMoodMap": pick("optionalMoodMap", ["a": "calm"], ["a": "vexed"]),
            ])
        }
        return url
    }

    private static func open(_ url: URL) async throws -> Realm {
        try await Realm(configuration: Realm.Configuration(fileURL: url, objectTypes: [Board.self]))
    }

    private static func mismatch(_ property: String, _ value: String, expected: String = "a raw value of a Mood case") -> FloeError {
        .typeMismatch(table: "EnumBoard", column: property, expected: expected, value: value)
    }

    @Test func aRequiredEnumWithNoCaseMakesTheReadThrowNamingClassPropertyAndValue() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Self.open(Self.makeFile(directory, damaged: ["mood"]))
        let error = await #expect(throws: FloeError.self) {
            try await realm.read { realm in realm.object(ofType: Board.self, forPrimaryKey: 2)?.mood }
        }
        #expect(error == Self.mismatch("mood", "'furious'"))
        #expect(error?.description == "Invalid value 'furious' for 'EnumBoard.mood': expected a raw value of a Mood case.")
        // Reads that do not meet the value are unaffected, and so is the valid object.
        #expect(try await realm.read { realm in realm.object(ofType: Board.self, forPrimaryKey: 2)?.optionalMood } == .calm)
        #expect(try await realm.read { realm in realm.objects(Board.self).map(\.id) } == [1, 2])
        #expect(try await realm.read { realm in realm.object(ofType: Board.self, forPrimaryKey: 1)?.mood } == .calm)
        // Every way of reading the value throws: iterating, copying out.
        await #expect(throws: Self.mismatch("mood", "'furious'")) {
            try await realm.read { realm in realm.objects(Board.self).map(\.mood) }
        }
        await #expect(throws: Self.mismatch("mood", "'furious'")) {
            try await realm.read { realm in try Board(value: realm.object(ofType: Board.self, forPrimaryKey: 2)!).mood }
        }
    }

    @Test func anIntegerEnumAndAnOptionalEnumThrowToo() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Self.open(Self.makeFile(directory, damaged: ["level", "optionalMood"]))
        await #expect(throws: Self.mismatch("level", "7", expected: "a raw value of a Level case")) {
            try await realm.read { realm in realm.object(ofType: Board.self, forPrimaryKey: 2)?.level }
        }
        // Not nil: a stored value that names no case is not an absent one.
        await #expect(throws: Self.mismatch("optionalMood", "'sulky'")) {
            try await realm.read { realm in realm.object(ofType: Board.self, forPrimaryKey: 2)?.optionalMood }
        }
        #expect(try await realm.read { realm in realm.object(ofType: Board.self, forPrimaryKey: 1)?.optionalMood } == .calm)
    }

    @Test func elementsOfListsSetsAndMapsThrowNamingTheCollection() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Self.open(Self.makeFile(directory, damaged: ["moods", "moodSet", "moodMap", "optionalMoodMap"]))
        func board(_ realm: borrowing Realm.ReadTransaction) -> Board { realm.object(ofType: Board.self, forPrimaryKey: 2)! }
        await #expect(throws: Self.mismatch("moods", "'livid'")) { try await realm.read { realm in Array(board(realm).moods) } }
        await #expect(throws: Self.mismatch("moods", "'livid'")) { try await realm.read { realm in board(realm).moods[1] } }
        await #expect(throws: Self.mismatch("moodSet", "'glum'")) { try await realm.read { realm in Array(board(realm).moodSet) } }
        await #expect(throws: Self.mismatch("moodMap", "'irate'")) { try await realm.read { realm in board(realm).moodMap["b"] } }
        await #expect(throws: Self.mismatch("moodMap", "'irate'")) { try await realm.read { realm in Array(board(realm).moodMap.values) } }
        await #expect(throws: Self.mismatch("optionalMoodMap", "'vexed'")) {
            try await realm.read { realm in board(realm).optionalMoodMap["a"] }
        }
        // The valid elements around them still read.
        #expect(try await realm.read { realm in board(realm).moods[0] } == .calm)
        #expect(try await realm.read { realm in board(realm).moodMap["a"] } == .calm)
        #expect(try await realm.read { realm in board(realm).moods.count } == 2)
        let valid = try await realm.read { realm in
            let board = realm.object(ofType: Board.self, forPrimaryKey: 1)!
            return (Array(board.moods), Array(board.moodSet), board.moodMap["a"], board.optionalMoodMap["a"], board.optionalMoodMap["b"])
        }
        #expect(valid.0 == [.calm, .cheerful] && valid.1 == [.calm] && valid.2 == .calm)
        #expect(valid.3 == .some(.cheerful) && valid.4 == .some(nil))
    }

    @Test func aWriteThatReadsTheValueThrowsAndRollsBack() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Self.open(Self.makeFile(directory, damaged: ["mood"]))
        await #expect(throws: Self.mismatch("mood", "'furious'")) {
            try await realm.write { realm in
                let board = realm.object(ofType: Board.self, forPrimaryKey: 2)!
                board.note = "seen \(board.mood)"
            }
        }
        #expect(try await realm.read { realm in realm.object(ofType: Board.self, forPrimaryKey: 2)?.note } == "")
        // Writing a case over it repairs the object.
        try await realm.write { realm in realm.object(ofType: Board.self, forPrimaryKey: 2)!.mood = .cheerful }
        #expect(try await realm.read { realm in realm.object(ofType: Board.self, forPrimaryKey: 2)?.mood } == .cheerful)
    }

    @Test func checkIntegrityReportsItWhereNoReadCanThrow() async throws {
        let directory = TemporaryDirectory()
        let url = try await Self.makeFile(directory, damaged: ["mood"])
        // Frozen objects read from another task.
        do {
            let realm = try await Self.open(url)
            let frozen = try await realm.read { realm in try realm.freeze() }
            try frozen.checkIntegrity()
            _ = await Task.detached { frozen.objects(Board.self).map(\.mood) }.value
            #expect(throws: Self.mismatch("mood", "'furious'")) { try frozen.checkIntegrity() }
        }
        // The realm's own synchronous reads inside the actor.
        let realm = try await Self.open(url)
        try realm.checkIntegrity()
        #expect(await realm.boardMoodsWithoutBoundary().count == 2)
        #expect(throws: Self.mismatch("mood", "'furious'")) { try realm.checkIntegrity() }
    }

    @Test func queriesAndSortsUseTheStoredValueAndAggregatesRefuseIt() async throws {
        let directory = TemporaryDirectory()
        let realm = try await Self.open(Self.makeFile(directory, damaged: ["mood", "level"]))
        // Queries and sorts compare stored raw values: they never decode the enum.
        #expect(try await realm.read { realm in try realm.objects(Board.self).filter("mood == 'furious'").map(\.id) } == [2])
        #expect(try await realm.read { realm in try realm.objects(Board.self).where { $0.mood == .calm }.map(\.id) } == [1])
        #expect(try await realm.read { realm in try realm.objects(Board.self).sorted(byKeyPath: "mood", ascending: false).map(\.id) } == [2, 1])
        #expect(try await realm.read { realm in try realm.objects(Board.self).sorted(byKeyPath: "level").map(\.id) } == [1, 2])
        // An aggregate that answers the stored value as the enum would make one up: refused.
        let largest = await #expect(throws: FloeError.self) {
            try await realm.read { realm -> Level? in try realm.objects(Board.self).max(ofProperty: "level") }
        }
        #expect(largest == .typeMismatch(table: "EnumBoard", column: "level", expected: "a value Level can hold", value: "7"))
        await #expect(throws: FloeError.self) {
            try await realm.read { realm in try realm.objects(Board.self).max(of: \.level) }
        }
        #expect(try await realm.read { realm -> Level? in try realm.objects(Board.self).min(ofProperty: "level") } == .low)
    }
}

extension Realm {
    /// Reads every board's mood on the actor with no `read { }` around it, as an application's
    /// `Realm` extension may.
    fileprivate func boardMoodsWithoutBoundary() -> [InvalidEnumValueTests.Mood] {
        objects(InvalidEnumValueTests.Board.self).map(\.mood)
    }
}
