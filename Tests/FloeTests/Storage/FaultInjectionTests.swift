import Foundation
import Testing
@_spi(Engine) @_spi(Testing) @testable import Floe
@_spi(Engine) @_spi(Testing) @testable import FloeEngine
@_spi(Engine) @_spi(Testing) @testable import FloeStorage

/// Every file operation of a realm's life (open, awaited writes, writes inside the actor,
/// compaction, reopen) made to fail in turn, as a full or failing disk does: each failure is a
/// typed error, the realm keeps serving reads, later writes work once the fault is gone (after
/// a failed fsync, only after reopening), and a reopen holds exactly the acknowledged writes.
///
/// Serialized: one fault plan at a time for this suite's paths (those containing "faults-").
@Suite(.serialized) struct FaultInjectionTests {
    /// The scenario's steps after opening: each writes three notes.
    enum Step: CaseIterable {
        case awaitedWrite, secondAwaitedWrite, compaction, writeInsideTheActor, thirdAwaitedWrite
    }

    struct Outcome {
        var acknowledged: Set<Int> = []
        /// Ids written by a write whose sync failed: on disk or not, nobody can tell.
        var undetermined: Set<Int> = []
        var errors: [FloeError] = []
        var syncFailed = false
        /// The realm the scenario used (nil if it never opened).
        var realm: Realm?
    }

    static func ids(of step: Int) -> [Int] { (0..<3).map { step * 3 + $0 } }

    static func configuration(_ path: String) -> Realm.Configuration {
        Realm.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Note.self])
    }

    /// Runs the scenario on a fresh file; faults (if installed) fire as they are planned.
    static func runScenario(path: String) async -> Outcome {
        var outcome = Outcome()
        var realm: Realm?
        for _ in 0..<2 where realm == nil {
            do {
                realm = try await Realm(configuration: configuration(path))
            } catch let error as FloeError {
                outcome.errors.append(error)
            } catch {
                outcome.errors.append(.io(path: path, operation: "\(error)", errno: 0))
            }
        }
        guard let realm else { return outcome }
        outcome.realm = realm
        for (index, step) in Step.allCases.enumerated() {
            let ids = Self.ids(of: index)
            do {
                switch step {
                case .awaitedWrite, .secondAwaitedWrite, .thirdAwaitedWrite:
                    try await realm.asyncWrite { realm in
                        for id in ids { try realm.create(Note.self, value: ["id": id, "text": "note \(id)"]) }
                    }
                case .writeInsideTheActor:
                    try await realm.addNotes(ids)
                case .compaction:
                    do {
                        try realm.store.compact()
                    } catch {
                        // A failed copy leaves the file as it was; only a rename that could not be
                        // made durable makes the store refuse writes.
                        outcome.errors.append(error)
                        if case .io(_, "fsync directory", _) = error { outcome.syncFailed = true }
                    }
                    try await realm.asyncWrite { realm in
                        for id in ids { try realm.create(Note.self, value: ["id": id, "text": "note \(id)"]) }
                    }
                }
                outcome.acknowledged.formUnion(ids)
            } catch let error as FloeError {
                outcome.errors.append(error)
                if case .io(_, "fsync", _) = error, !outcome.syncFailed {
                    outcome.syncFailed = true
                    outcome.undetermined.formUnion(ids)
                }
            } catch {
                outcome.errors.append(.io(path: path, operation: "\(error)", errno: 0))
            }
        }
        return outcome
    }

    @Test func everyFileOperationFailingInTurnLosesNothingAcknowledged() async throws {
        let directory = TemporaryDirectory("faults")
        // A clean run: how many operations the scenario makes, and what it stores.
        let cleanPath = directory.file("faults-clean.floe")
        FaultInjection.count(pathContains: "faults-")
        let clean = await Self.runScenario(path: cleanPath)
        let operations = FaultInjection.operations(pathContains: "faults-")
        FaultInjection.remove(pathContains: "faults-")
        #expect(clean.errors.isEmpty && clean.acknowledged.count == 15, "\(clean.errors)")
        #expect(operations.count > 10, "the scenario made only \(operations.count) file operations")
        // Compaction reads the file through a mapping: making that mapping fails in turn too.
        #expect(operations.contains(.map), "the scenario's compaction mapped nothing: \(operations)")

        var trials = 0, failedSyncs = 0, reportedErrors = 0
        for (index, operation) in operations.enumerated() {
            var failures: [FaultInjection.Failure] = [.error(EIO)]
            if operation == .write { failures += [.error(ENOSPC), .shortWrite] }
            if operation == .sync { failures = [.error(EIO)] }
            for failure in failures {
                trials += 1
                let path = directory.file("faults-\(index)-\(trials).floe")
                let context = "operation \(index) (\(operation)) failing with \(failure)"
                FaultInjection.install(.init(pathContains: "faults-", failing: index, with: failure))
                let outcome = await Self.runScenario(path: path)
                FaultInjection.remove(pathContains: "faults-")
                if outcome.syncFailed { failedSyncs += 1 }
                if !outcome.errors.isEmpty { reportedErrors += 1 }
                try await check(outcome, path: path, context: context)
            }
        }
        #expect(trials >= operations.count)
        // The scenario reached commit syncs (whose failure must stop writes) and most faults surfaced.
        #expect(failedSyncs > 0, "no trial failed a commit's fsync")
        #expect(reportedErrors > trials / 2, "only \(reportedErrors) of \(trials) faults were reported")
        print("fault injection: \(operations.count) file operations, \(trials) trials, \(failedSyncs) failed commit syncs, \(reportedErrors) reported")
    }

    private func check(_ outcome: consuming Outcome, path: String, context: String) async throws {
        for error in outcome.errors {
            guard case .io = error else {
                Issue.record("\(context): a fault surfaced as \(error), not as an I/O error")
                continue
            }
        }
        // The realm (if it opened) still reads, and holds at least what was acknowledged.
        if let realm = outcome.realm {
            let live = Set(try await realm.read { realm in realm.objects(Note.self).map(\.id) })
            #expect(outcome.acknowledged.isSubset(of: live), "\(context): live realm lost \(outcome.acknowledged.subtracting(live))")
            if outcome.syncFailed {
                // After a failed fsync nothing more is written until the file is reopened.
                await #expect(throws: FloeError.self, "\(context)") {
                    try await realm.asyncWrite { realm in try realm.create(Note.self, value: ["id": 1_000]) }
                }
            } else {
                // The fault is gone: writes work again.
                try await realm.asyncWrite { realm in try realm.create(Note.self, value: ["id": 1_000]) }
            }
        }
        outcome.realm = nil
        // Reopened from disk: exactly the acknowledged writes (plus, after a failed sync, maybe
        // that write), and a file that verifies.
        let store = try Store.open(path: path, options: StoreOptions(compactsAutomatically: false))
        let report = try store.verify()
        store.close()
        #expect(report.isValid, "\(context): \(report)")
        let reopened = try await Realm(configuration: Self.configuration(path))
        let stored = Set(try await reopened.read { realm in realm.objects(Note.self).map(\.id) }).subtracting([1_000])
        #expect(outcome.acknowledged.isSubset(of: stored), "\(context) [\(outcome.errors)]: acknowledged \(outcome.acknowledged.subtracting(stored).sorted()) lost")
        let unexpected = stored.subtracting(outcome.acknowledged).subtracting(outcome.undetermined)
        #expect(unexpected.isEmpty, "\(context): \(unexpected.sorted()) stored but never acknowledged")
        try await reopened.asyncWrite { realm in try realm.create(Note.self, value: ["id": 2_000], update: .modified) }
    }
}

extension Realm {
    fileprivate func addNotes(_ ids: [Int]) throws {
        try write {
            for id in ids { try create(Note.self, value: ["id": id, "text": "note \(id)"]) }
        }
    }
}
