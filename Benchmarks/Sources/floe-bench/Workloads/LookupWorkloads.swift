import Floe
import GRDB

/// W4: N lookups by primary key, each reading the dog's `name`, ids 0..<N in order.
///
/// Floe: `object(ofType:forPrimaryKey:)` inside one read. GRDB, inside one read: the record
/// API (`DogRecord.fetchOne(db, id:)`), and a prepared statement
/// (`SELECT name FROM dog WHERE id = ?`) re-executed with each id, SQLite's fastest path.
/// Every name read is compared with the expected one.
enum LookupWorkloads {
    static let rounds = 3

    static func run(fixtures: Fixtures, reporter: Reporter) async throws {
        let count = Fixtures.dogCount
        let names = (0..<count).map(Dog.name)
        let paths = try await fixtures.dogFilePaths()
        let realm = try await RealmDogs.open(at: paths.floe)
        let database = try GRDBDogs.open(at: paths.grdb)
        defer { try? database.close() }

        let samples = try await Runs.interleaved(rounds: rounds, [{
            var mismatches = 0
            let elapsed = try await Clocks.wallTime {
                mismatches = try await realm.read { realm in
                    var mismatches = 0
                    for id in 0..<count where realm.object(ofType: RealmDog.self, forPrimaryKey: id)?.name != names[id] {
                        mismatches += 1
                    }
                    return mismatches
                }
            }
            guard mismatches == 0 else { throw BenchmarkFailure("Floe: \(mismatches) of \(count) lookups gave a wrong name") }
            return elapsed
        }, {
            var mismatches = 0
            let elapsed = try Clocks.wallTime {
                mismatches = try database.read { db in
                    var mismatches = 0
                    for id in 0..<count where try DogRecord.fetchOne(db, id: id)?.name != names[id] {
                        mismatches += 1
                    }
                    return mismatches
                }
            }
            guard mismatches == 0 else { throw BenchmarkFailure("GRDB fetchOne: \(mismatches) of \(count) lookups gave a wrong name") }
            return elapsed
        }, {
            var mismatches = 0
            let elapsed = try Clocks.wallTime {
                mismatches = try database.read { db in
                    let statement = try db.makeStatement(sql: "SELECT name FROM dog WHERE id = ?")
                    var mismatches = 0
                    for id in 0..<count where try String.fetchOne(statement, arguments: [id]) != names[id] {
                        mismatches += 1
                    }
                    return mismatches
                }
            }
            guard mismatches == 0 else { throw BenchmarkFailure("GRDB statement: \(mismatches) of \(count) lookups gave a wrong name") }
            return elapsed
        }])
        let (floe, record, statement) = (samples[0], samples[1], samples[2])

        reporter.note("per lookup: Floe \(Format.duration(nanoseconds: floe.median / Double(count))), GRDB fetchOne \(Format.duration(nanoseconds: record.median / Double(count))), prepared statement \(Format.duration(nanoseconds: statement.median / Double(count)))")
        reporter.add(ReportLine(
            workload: "W4 100k primary-key lookups + name (GRDB: fetchOne)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: record.median),
            ratio: Format.speedup(floe: floe.median, peer: record.median),
            target: "≥ 50× GRDB fetchOne",
            verdict: record.median / floe.median >= 50 ? .met : .missed,
            gate: GateFigure(key: "W4", floe: floe.median, peer: record.median)))
        reporter.add(ReportLine(
            workload: "W4 same (GRDB: prepared statement)",
            floe: Format.duration(nanoseconds: floe.median),
            peer: Format.duration(nanoseconds: statement.median),
            ratio: Format.speedup(floe: floe.median, peer: statement.median),
            target: "≥ 5× prepared statement",
            verdict: statement.median / floe.median >= 5 ? .met : .missed))
    }
}
