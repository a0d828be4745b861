import Foundation
@_spi(Engine) import Floe
@_spi(Engine) import FloeEngine
@_spi(Engine) import FloeStorage

// libFuzzer target: any bytes as a Floe file. Opening, verifying and reading everything must
// end in a value or a FloeError: never a crash, a hang or an unbounded allocation.

private let path: String = {
    let directory = FileManager.default.temporaryDirectory.path
    return "\(directory)/floe-fuzz-\(getpid()).floe"
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzFileReader(_ start: UnsafeRawPointer, _ count: Int) -> CInt {
    let data = Data(bytes: start, count: count)
    guard (try? data.write(to: URL(fileURLWithPath: path))) != nil else { return 0 }
    defer { unlink(path) }
    guard let store = try? Store.open(path: path, options: StoreOptions(readOnly: true, compactsAutomatically: false)) else { return 0 }
    defer { store.close() }
    _ = try? store.verify()
    guard let snapshot = try? store.snapshot(), let names = try? snapshot.tableNames() else { return 0 }
    for name in names {
        guard let table = try? snapshot.table(named: name), let spec = try? snapshot.spec(of: table),
              let keys = try? snapshot.objectKeys(in: table) else { continue }
        _ = try? snapshot.objectCount(in: table)
        for key in keys.prefix(10_000) {
            _ = try? snapshot.row(in: table, key: key)
            for (column, columnSpec) in spec.columns.enumerated() {
                switch columnSpec.collection {
                case .single: break
                case .map: _ = try? snapshot.mapEntries(in: table, key: key, column: column)
                case .list, .set: _ = try? snapshot.collectionElements(in: table, key: key, column: column)
                }
            }
        }
    }
    return 0
}
