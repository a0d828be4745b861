import Foundation

/// A fresh directory per test, removed when the value goes away.
final class TemporaryDirectory: @unchecked Sendable {
    let path: String

    init(_ name: String = #function) {
        let base = FileManager.default.temporaryDirectory.path
        let safe = name.filter { $0.isLetter || $0.isNumber }
        path = "\(base)/floe-tests-\(safe)-\(UUID().uuidString.prefix(8))"
        try! FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    func file(_ name: String = "test.floe") -> String { "\(path)/\(name)" }

    deinit { try? FileManager.default.removeItem(atPath: path) }
}
