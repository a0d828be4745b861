import Foundation
import Testing
@_spi(Engine) @testable import Floe
@_spi(Engine) @testable import FloeEngine
@_spi(Engine) @testable import FloeStorage

/// Inputs the fuzzers once crashed on (`Fuzz/Regressions/file`), replayed through the same
/// reads as the file-reader target: each must end in values or a `FloeError`.
@Suite struct FuzzRegressionTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("../../../Fuzz/Regressions/file").standardized

    @Test func fileReaderRegressionsReadWithoutTrapping() throws {
        let names = try FileManager.default.contentsOfDirectory(atPath: Self.directory.path).sorted()
        #expect(!names.isEmpty)
        let scratch = TemporaryDirectory()
        for name in names {
            let path = scratch.file(name + ".floe")
            try FileManager.default.copyItem(atPath: Self.directory.appendingPathComponent(name).path, toPath: path)
            var errors = 0
            do {
                let store = try Store.open(path: path, options: StoreOptions(readOnly: true, compactsAutomatically: false))
                defer { store.close() }
                _ = try? store.verify()
                let snapshot = try store.snapshot()
                for tableName in try snapshot.tableNames() {
                    let table = try snapshot.table(named: tableName)
                    let spec = try snapshot.spec(of: table)
                    for key in try snapshot.objectKeys(in: table) {
                        do {
                            _ = try snapshot.row(in: table, key: key)
                            for (column, columnSpec) in spec.columns.enumerated() where columnSpec.collection != .single {
                                _ = try snapshot.collectionElements(in: table, key: key, column: column)
                            }
                        } catch {
                            errors += 1
                        }
                    }
                }
            } catch {
                errors += 1
            }
            // Reaching here without a trap is the point; this input is damaged, so something must say so.
            #expect(errors > 0, "\(name) read without any error")
        }
    }
}
