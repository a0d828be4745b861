// swift-tools-version:6.0
import PackageDescription
import Foundation

// Invariant checks run in debug builds (and tests) and compile away in release.
let invariants: [SwiftSetting] = [.define("FLOE_INVARIANTS", .when(configuration: .debug))]

let package = Package(
    name: "Floe",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Floe", targets: ["Floe"]),
        // Two-way sync's client side and protocol; the server lives in Sync/ (its own package).
        .library(name: "FloeSync", targets: ["FloeSync"]),
        .executable(name: "floe", targets: ["floe"]),
    ],
    targets: [
        // The library is three targets, one product: the file (with the errors and locks every
        // floor uses), the engine on it, and the object database users import (Docs/Architecture.md).
        .target(name: "FloeStorage", swiftSettings: invariants),
        .target(name: "FloeEngine", dependencies: ["FloeStorage"], swiftSettings: invariants),
        .target(name: "Floe", dependencies: ["FloeEngine", "FloeStorage"], swiftSettings: invariants),
        .target(name: "FloeSync", dependencies: ["Floe"]),
        .executableTarget(name: "floe", dependencies: ["Floe", "FloeEngine", "FloeStorage"]),
        // A child process the crash tests start and kill at random points.
        .executableTarget(name: "FloeCrashChild", dependencies: ["Floe", "FloeEngine", "FloeStorage"], path: "Tests/FloeCrashChild"),
        .testTarget(name: "FloeTests", dependencies: ["Floe", "FloeEngine", "FloeStorage", "FloeCrashChild", "floe"]),
        .testTarget(name: "FloeSyncTests", dependencies: ["Floe", "FloeEngine", "FloeStorage", "FloeSync"]),
    ],
    swiftLanguageModes: [.v6]
)

// libFuzzer targets, only when Scripts/fuzz.sh builds them (FLOE_FUZZ=1, with
// -sanitize=fuzzer,address): libFuzzer brings its own main, which an ordinary build lacks.
if ProcessInfo.processInfo.environment["FLOE_FUZZ"] != nil {
    for (name, path) in [("floe-fuzz-file", "Fuzz/FileReader"), ("floe-fuzz-predicate", "Fuzz/Predicate")] {
        package.targets.append(.executableTarget(name: name, dependencies: ["Floe", "FloeEngine", "FloeStorage"], path: path,
                                                 swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
    }
    package.targets.append(.executableTarget(name: "floe-fuzz-sync", dependencies: ["FloeSync"], path: "Fuzz/SyncMessage",
                                             swiftSettings: [.unsafeFlags(["-parse-as-library"])]))
}
