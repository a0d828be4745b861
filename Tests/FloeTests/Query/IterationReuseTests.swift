import Foundation
import Testing
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// Iteration re-points one object per row, a to-one link read re-points the object the
/// previous link read answered, and a write in place logs its change without naming the
/// table per write. These tests pin what must not change under the caller: an object kept
/// by the caller keeps its row, a kept link target keeps its object, a target that moved
/// or was deleted is found again (or reads as nil), a rolled-back write is not seen, and
/// observers hear of writes made in place under their class and property names.
@Suite struct IterationReuseTests {
    final class Owner: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var name = ""
        @Persisted var score = 0
    }

    final class Pet: Object {
        @Persisted(primaryKey: true) var id = 0
        @Persisted var age = 0
        @Persisted var owner: Owner?
    }

    /// More pets and owners than one leaf holds, so walks and link targets cross leaves.
    static let pets = 1_200
    static let owners = 700

    static func ownerID(of pet: Int) -> Int { (pet * 7919) % owners }

    /// `owners` owners named `owner<id>` and `pets` pets, pet `id` linking to owner
    /// `ownerOf(id)` (nil: no owner). By default every tenth pet has no owner: an empty link
    /// between full ones.
    static func makeRealm(owners: Int = owners, pets: Int = pets,
                          ownerOf: @escaping @Sendable (Int) -> Int? = { $0 % 10 == 9 ? nil : ownerID(of: $0) }) async throws -> Realm {
        let realm = try await inMemoryRealm("iteration-reuse")
        try await realm.write { realm in
            for id in 0..<owners {
                let owner = Owner()
                owner.id = id
                owner.name = "owner\(id)"
                try realm.add(owner)
            }
            for id in 0..<pets {
                let pet = Pet()
                pet.id = id
                pet.age = id % 20
                pet.owner = ownerOf(id).flatMap { realm.object(ofType: Owner.self, forPrimaryKey: $0) }
                try realm.add(pet)
            }
        }
        return realm
    }

    static func expectedName(ofPet id: Int) -> String? { id % 10 == 9 ? nil : "owner\(ownerID(of: id))" }

    /// Each pet's owner's name, read in a walk (`for pet in`), which re-points one pet object
    /// and its link target from row to row (`map` on results reads by position instead).
    static func ownerNames(_ pets: Results<Pet>) -> [String?] {
        var names: [String?] = []
        for pet in pets { names.append(pet.owner?.name) }
        return names
    }

    @Test func linkTargetsReadInAWalkAreEachTheirOwn() async throws {
        let realm = try await Self.makeRealm()
        let names = try await realm.read { realm in realm.objects(Pet.self).map { $0.owner?.name } }
        #expect(names == (0..<Self.pets).map(Self.expectedName(ofPet:)))
    }

    @Test func linkTargetsTheCallerKeepsDoNotChangeUnderIt() async throws {
        let realm = try await Self.makeRealm()
        let (kept, later) = try await realm.read { realm in
            var kept: [(Int, Owner)] = []
            var later: [String?] = []
            for pet in realm.objects(Pet.self) {
                // Every third target is kept; the others are let go and may be re-pointed.
                if pet.id % 3 == 0, let owner = pet.owner { kept.append((pet.id, owner)) }
                later.append(pet.owner?.name)
            }
            return (kept.map { ($0.0, $0.1.id, $0.1.name) }, later)
        }
        #expect(kept.count > Self.pets / 4)
        for (pet, ownerID, name) in kept {
            #expect(ownerID == Self.ownerID(of: pet))
            #expect(name == "owner\(Self.ownerID(of: pet))")
        }
        #expect(later == (0..<Self.pets).map(Self.expectedName(ofPet:)))
    }

    @Test func iterationObjectsTheCallerKeepsKeepTheirRowsInAWrite() async throws {
        let realm = try await Self.makeRealm()
        let kept = try await realm.write { realm in
            var kept: [Pet] = []
            for pet in realm.objects(Pet.self) {
                pet.age += 100   // copies each leaf on its first write, then writes in place
                if pet.id % 97 == 0 { kept.append(pet) }
            }
            return kept.map { "\($0.id):\($0.age):\($0.owner?.name ?? "-")" }
        }
        #expect(kept == stride(from: 0, to: Self.pets, by: 97).map { "\($0):\($0 % 20 + 100):\(Self.expectedName(ofPet: $0) ?? "-")" })
    }

    @Test func aLinkTargetMovedByInsertsIsFoundAgain() async throws {
        let realm = try await Self.makeRealm()
        let names = try await realm.write { realm in
            var names: [String?] = []
            let pets = realm.objects(Pet.self)
            names.append(pets[0].owner?.name)   // the target of pet 0 is cached in its leaf
            // Owners inserted in front split the owners' leaves: every target row moves.
            for id in -900 ..< 0 {
                let owner = Owner()
                owner.id = id
                owner.name = "new\(id)"
                try realm.add(owner)
            }
            for pet in pets { names.append(pet.owner?.name) }
            return names
        }
        #expect(names == [Self.expectedName(ofPet: 0)] + (0..<Self.pets).map(Self.expectedName(ofPet:)))
    }

    @Test func aDeletedLinkTargetReadsAsNilAndItsNeighboursStillRead() async throws {
        let realm = try await Self.makeRealm()
        let deleted = Self.ownerID(of: 1)
        let names = try await realm.write { realm in
            let pets = realm.objects(Pet.self)
            _ = pets.map { $0.owner?.name }   // targets cached, leaf by leaf
            try realm.delete(realm.object(ofType: Owner.self, forPrimaryKey: deleted)!)
            return pets.map { $0.owner?.name }
        }
        #expect(names == (0..<Self.pets).map { Self.ownerID(of: $0) == deleted ? nil : Self.expectedName(ofPet: $0) })
    }

    @Test func aLinkTargetWrittenInTheLoopIsReadWithItsNewValue() async throws {
        let realm = try await Self.makeRealm()
        let scores = try await realm.write { realm in
            var scores: [Int] = []
            for pet in realm.objects(Pet.self) {
                guard let owner = pet.owner else { continue }
                owner.score += 1
                scores.append(pet.owner!.score)
            }
            return scores
        }
        // Each owner's score counts the pets met so far that it owns.
        var counts: [Int: Int] = [:]
        var expected: [Int] = []
        for id in 0..<Self.pets where Self.expectedName(ofPet: id) != nil {
            counts[Self.ownerID(of: id), default: 0] += 1
            expected.append(counts[Self.ownerID(of: id)]!)
        }
        #expect(scores == expected)
    }

    @Test func readsAfterARolledBackWriteSeeTheValuesBeforeIt() async throws {
        struct Abandon: Error {}
        let realm = try await Self.makeRealm()
        let (before, after) = try await realm.read { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 2)!
            return (pet.age, pet.owner?.name)
        }
        await #expect(throws: Abandon.self) {
            try await realm.write { realm in
                for pet in realm.objects(Pet.self) {
                    pet.age += 1
                    pet.owner?.score += 1
                    if pet.id % 5 == 0 { pet.owner = nil }
                }
                throw Abandon()
            }
        }
        let read = try await realm.read { realm in
            realm.objects(Pet.self).map { "\($0.age):\($0.owner?.name ?? "-"):\($0.owner?.score ?? -1)" }
        }
        #expect(read == (0..<Self.pets).map { "\($0 % 20):\(Self.expectedName(ofPet: $0) ?? "-"):\(Self.expectedName(ofPet: $0) == nil ? -1 : 0)" })
        #expect(before == 2 && after == Self.expectedName(ofPet: 2))
    }

    /// Pets linking to owners that span more leaves than a re-pointed link target keeps rows
    /// for, in a scattered order: every read is answered by the kept rows, a descent, or a
    /// row swapped out of the kept ones, and each must be the pet's own owner.
    @Test func linkTargetsAcrossMoreLeavesThanAreKeptReadTheirOwnRows() async throws {
        let owners = 2_500   // ten leaves
        let pets = 3_000
        // Mostly within four leaves, with a jump to any of the ten every fifth pet.
        let realm = try await Self.makeRealm(owners: owners, pets: pets) { $0 % 5 == 4 ? ($0 * 7919) % owners : ($0 * 131) % 1_000 }
        let expected = (0..<pets).map { "owner\($0 % 5 == 4 ? ($0 * 7919) % owners : ($0 * 131) % 1_000)" }
        let names = try await realm.read { realm in Self.ownerNames(realm.objects(Pet.self)) }
        #expect(names == expected)
        let backwards = try await realm.read { realm in
            try Self.ownerNames(realm.objects(Pet.self).sorted(byKeyPath: "id", ascending: false))
        }
        #expect(backwards == expected.reversed())
    }

    /// Rows kept from other leaves are dropped when a write copies a leaf, and read a leaf's
    /// new values when the write changes it in place (the kept row is in that same leaf):
    /// the owners are renamed in the middle of one walk, which keeps its link target.
    @Test func rowsKeptFromOtherLeavesFollowTheWritesOfTheLoop() async throws {
        let realm = try await Self.makeRealm()
        let names = try await realm.write { realm in
            var names: [String?] = []
            for pet in realm.objects(Pet.self) {
                // The first renaming copies each owner leaf: the rows kept are then stale.
                if pet.id == 400 { for owner in realm.objects(Owner.self) where owner.id % 7 == 0 { owner.name = "renamed\(owner.id)" } }
                // The second writes in place, in leaves the write owns and kept rows point into.
                if pet.id == 800 { for owner in realm.objects(Owner.self) where owner.id % 7 == 0 { owner.name = "again\(owner.id)" } }
                names.append(pet.owner?.name)
            }
            return names
        }
        let expected: [String?] = (0..<Self.pets).map { pet in
            guard let name = Self.expectedName(ofPet: pet) else { return nil }
            let owner = Self.ownerID(of: pet)
            guard owner % 7 == 0, pet >= 400 else { return name }
            return pet >= 800 ? "again\(owner)" : "renamed\(owner)"
        }
        #expect(names == expected)
        // Committed: a read after the write sees the last names through fresh rows.
        let read = try await realm.read { realm in Self.ownerNames(realm.objects(Pet.self)) }
        #expect(read == (0..<Self.pets).map { pet in
            Self.ownerID(of: pet) % 7 == 0 && Self.expectedName(ofPet: pet) != nil ? "again\(Self.ownerID(of: pet))" : Self.expectedName(ofPet: pet)
        })
    }

    /// A key is looked for at its distance from its leaf's first key, which holds it only
    /// while the leaf's keys run without gaps: with gaps, the search must still find each
    /// key (lookups and link targets re-pointed within a leaf) and miss the deleted ones.
    @Test func keysAreFoundInLeavesWithGaps() async throws {
        let realm = try await Self.makeRealm()
        try await realm.write { realm in
            for id in stride(from: 1, to: Self.owners, by: 3) { try realm.delete(realm.object(ofType: Owner.self, forPrimaryKey: id)!) }
        }
        let (looked, linked) = try await realm.read { realm in
            ((0..<Self.owners).map { realm.object(ofType: Owner.self, forPrimaryKey: $0)?.name },
             Self.ownerNames(realm.objects(Pet.self)))
        }
        #expect(looked == (0..<Self.owners).map { $0 % 3 == 1 ? nil : "owner\($0)" })
        #expect(linked == (0..<Self.pets).map { Self.ownerID(of: $0) % 3 == 1 ? nil : Self.expectedName(ofPet: $0) })
    }

    @Test func writesInPlaceAreReportedUnderTheirClassAndProperty() async throws {
        let realm = try await Self.makeRealm()
        var petChanges = try await realm.read { realm in try realm.object(ofType: Pet.self, forPrimaryKey: 3)!.changes }.makeAsyncIterator()
        var ownerChanges = try await realm.read { realm in
            try realm.object(ofType: Owner.self, forPrimaryKey: Self.ownerID(of: 3))!.changes
        }.makeAsyncIterator()
        try await realm.write { realm in
            let pet = realm.object(ofType: Pet.self, forPrimaryKey: 3)!
            let owner = pet.owner!
            pet.age = 50      // copies the pet's leaf
            pet.age = 51      // in place
            owner.score = 1   // copies the owner's leaf
            owner.score = 2   // in place, another class
            pet.age = 52      // in place, the first class again
        }
        guard case .change(let pet, let petProperties) = await petChanges.next() else { Issue.record("expected a change of the pet"); return }
        #expect(pet.age == 52)
        #expect(petProperties.map(\.name) == ["age"])
        guard case .change(let owner, let ownerProperties) = await ownerChanges.next() else { Issue.record("expected a change of the owner"); return }
        #expect(owner.score == 2)
        #expect(ownerProperties.map(\.name) == ["score"])
    }

    // MARK: Objects taken in the middle of a walk

    /// `count` lynxes with ids 0, 2, 4, … (gaps for inserts), each named after its id and
    /// marked with its id: more than four leaves.
    static func makeLynxRealm(count: Int = pets) async throws -> Realm {
        let realm = try await inMemoryRealm("iteration-reuse-lynx")
        try await realm.write { realm in
            for index in 0..<count {
                let lynx = LookupReuseTests.Lynx()
                lynx.id = index * 2
                lynx.name = "lynx\(index * 2)"
                lynx.marks.append(index * 2)
                try realm.add(lynx)
            }
        }
        return realm
    }

    final class WeakLynx: @unchecked Sendable {
        weak var lynx: LookupReuseTests.Lynx?
    }

    final class UnownedLynx {
        unowned let lynx: LookupReuseTests.Lynx
        init(_ lynx: LookupReuseTests.Lynx) { self.lynx = lynx }
    }

    /// The walk re-points its one object from row to row only while nothing else refers to
    /// it: an object the loop body keeps strongly, weakly or unowned, or whose list it keeps,
    /// after the walk has re-pointed it for hundreds of rows (and in any leaf, at its first
    /// and last rows), must keep its row, and the walk goes on with an object of its own.
    @Test func objectsTakenInTheMiddleOfAWalkKeepTheirRows() async throws {
        let realm = try await Self.makeLynxRealm()
        let taken = [254, 256, 510, 512, 1_022, 1_024, 1_800, 2_398]   // rows 127, 128, 255, 256, 511, 512, 900 and the last
        try await realm.read { realm in
            var kept: [LookupReuseTests.Lynx] = []
            var lists: [(Int, List<Int>)] = []
            let weak = WeakLynx()
            var unowned: [(UnownedLynx, ObjectIdentifier)] = []
            var walked: [Int] = []
            for lynx in realm.objects(LookupReuseTests.Lynx.self) {
                walked.append(lynx.id)
                #expect(lynx.name == "lynx\(lynx.id)")
                #expect(!unowned.contains { $0.1 == ObjectIdentifier(lynx) }, "an object held unowned was re-pointed to \(lynx.id)")
                if let held = weak.lynx { #expect(held.id == 600, "an object held weakly was re-pointed to \(held.id)") }
                switch lynx.id {
                case _ where taken.contains(lynx.id): kept.append(lynx)
                case 600: weak.lynx = lynx
                case 700, 1_400: unowned.append((UnownedLynx(lynx), ObjectIdentifier(lynx)))
                case 900, 2_000: lists.append((lynx.id, lynx.marks))
                default: break
                }
            }
            #expect(walked == Array(stride(from: 0, to: Self.pets * 2, by: 2)))
            #expect(kept.map(\.id) == taken)
            #expect(kept.map(\.name) == taken.map { "lynx\($0)" })
            for (id, list) in lists { #expect(Array(list) == [id]) }
            withExtendedLifetime(unowned) {}
        }
    }

    /// An object that was once referenced weakly keeps its counts in a side table from then on,
    /// where strong references no longer change the word the fast check compares: after a
    /// weak reference taken and dropped in the middle of a walk, objects kept strongly, unowned
    /// or through a list later in the walk must still keep their rows.
    @Test func objectsKeptAfterAWeakReferenceCameAndWentKeepTheirRows() async throws {
        let realm = try await Self.makeLynxRealm()
        try await realm.read { realm in
            var kept: [LookupReuseTests.Lynx] = []
            var lists: [(Int, List<Int>)] = []
            var unowned: [(UnownedLynx, ObjectIdentifier)] = []
            let weak = WeakLynx()
            for lynx in realm.objects(LookupReuseTests.Lynx.self) {
                #expect(!unowned.contains { $0.1 == ObjectIdentifier(lynx) }, "an object held unowned was re-pointed to \(lynx.id)")
                if lynx.id % 100 == 50 {
                    weak.lynx = lynx   // the walk's object gets a side table
                    weak.lynx = nil
                }
                if lynx.id % 100 == 60 { kept.append(lynx) }
                if lynx.id % 400 == 70 { unowned.append((UnownedLynx(lynx), ObjectIdentifier(lynx))) }
                if lynx.id % 400 == 80 { lists.append((lynx.id, lynx.marks)) }
            }
            #expect(kept.map(\.id) == Array(stride(from: 60, to: Self.pets * 2, by: 100)))
            #expect(kept.map(\.name) == stride(from: 60, to: Self.pets * 2, by: 100).map { "lynx\($0)" })
            for (id, list) in lists { #expect(Array(list) == [id]) }
            withExtendedLifetime(unowned) {}
        }
    }

    /// The same inside a write whose loop body writes every object in place: kept objects
    /// keep their rows and their written values, and the walk reaches every row once.
    @Test func objectsTakenInTheMiddleOfAWritingWalkKeepTheirRows() async throws {
        let realm = try await Self.makeRealm()
        let (kept, ages) = try await realm.write { realm in
            var kept: [Pet] = []
            for pet in realm.objects(Pet.self) {
                pet.age += 1_000
                if [255, 256, 511, 512, 700].contains(pet.id) { kept.append(pet) }
                pet.age += 1_000
            }
            return (kept.map { "\($0.id):\($0.age)" }, realm.objects(Pet.self).map(\.age))
        }
        #expect(kept == [255, 256, 511, 512, 700].map { "\($0):\($0 % 20 + 2_000)" })
        #expect(ages == (0..<Self.pets).map { $0 % 20 + 2_000 })
    }

    /// A write in the loop body that moves rows of the leaf being walked (an insert between
    /// its rows, then a delete of a row behind): the walk goes on over the rows it started
    /// with, each object reads and writes its own row, and no value lands in another row.
    @Test func aWriteThatMovesRowsInTheMiddleOfAWalkMovesNoValue() async throws {
        let realm = try await Self.makeLynxRealm()
        let walked = try await realm.write { realm in
            var walked: [Int] = []
            for lynx in realm.objects(LookupReuseTests.Lynx.self) {
                walked.append(lynx.id)
                lynx.name = "walked\(lynx.id)"
                #expect(lynx.name == "walked\(lynx.id)")
                if lynx.id == 100 {
                    // Odd ids between the rows ahead in this leaf: the rows after 100 move.
                    for id in stride(from: 101, through: 201, by: 2) {
                        let inserted = LookupReuseTests.Lynx()
                        inserted.id = id
                        inserted.name = "inserted\(id)"
                        try realm.add(inserted)
                    }
                }
                if lynx.id == 300 { try realm.delete(realm.object(ofType: LookupReuseTests.Lynx.self, forPrimaryKey: 298)!) }
            }
            return walked
        }
        #expect(walked == Array(stride(from: 0, to: Self.pets * 2, by: 2)))
        let names = try await realm.read { realm in
            Dictionary(uniqueKeysWithValues: realm.objects(LookupReuseTests.Lynx.self).map { ($0.id, $0.name) })
        }
        var expected = Dictionary(uniqueKeysWithValues: stride(from: 0, to: Self.pets * 2, by: 2).map { ($0, "walked\($0)") })
        expected[298] = nil
        for id in stride(from: 101, through: 201, by: 2) { expected[id] = "inserted\(id)" }
        #expect(names == expected)
    }

    /// Two walks of one results at once, and a walk left early and begun again: each
    /// iterator re-points only its own object.
    @Test func nestedAndRestartedWalksEachKeepTheirOwnObject() async throws {
        let realm = try await Self.makeLynxRealm()
        try await realm.read { realm in
            let lynxes = realm.objects(LookupReuseTests.Lynx.self)
            var pairs = 0
            for outer in lynxes where outer.id % 400 == 0 {
                for inner in lynxes {
                    if inner.id > 20 { break }
                    #expect(inner.name == "lynx\(inner.id)")
                    pairs += 1
                }
                #expect(outer.name == "lynx\(outer.id)")
            }
            #expect(pairs == 6 * 11)
            var sum = 0
            for lynx in lynxes { sum += lynx.id }
            #expect(sum == stride(from: 0, to: Self.pets * 2, by: 2).reduce(0, +))
        }
    }

    /// A rolled-back walk of writes leaves every value, and a walk right after it reads them.
    @Test func aWalkAfterARolledBackWritingWalkReadsTheValuesBeforeIt() async throws {
        struct Abandon: Error {}
        let realm = try await Self.makeRealm()
        await #expect(throws: Abandon.self) {
            try await realm.write { realm in
                for pet in realm.objects(Pet.self) { pet.age += 7 }
                throw Abandon()
            }
        }
        let (sum, ages) = try await realm.read { realm in
            var sum = 0
            for pet in realm.objects(Pet.self) { sum += pet.age }
            return (sum, realm.objects(Pet.self).map(\.age))
        }
        #expect(sum == (0..<Self.pets).reduce(0) { $0 + $1 % 20 })
        #expect(ages == (0..<Self.pets).map { $0 % 20 })
    }
}
