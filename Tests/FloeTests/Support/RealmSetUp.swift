import Foundation
@testable import Floe
@testable import FloeEngine
@testable import FloeStorage

/// A realm in memory under a fresh identifier, `"\(label)-<UUID>"`, so that tests running at
/// once never share one; of `objectTypes`, or of every class it is used with when nil.
func inMemoryRealm(_ label: String, objectTypes: [ObjectBase.Type]? = nil) async throws -> Realm {
    try await Realm(configuration: Realm.Configuration(inMemoryIdentifier: "\(label)-\(UUID())", objectTypes: objectTypes))
}

extension TemporaryDirectory {
    /// The URL of a file in this directory, for `Realm.Configuration(fileURL:)`.
    func url(_ name: String = "test.floe") -> URL { URL(fileURLWithPath: file(name)) }
}
