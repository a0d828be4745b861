// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Floe",
    platforms: [.macOS(.v15), .iOS(.v18), .tvOS(.v18), .watchOS(.v11), .visionOS(.v2)],
    products: [
        .library(name: "Floe", targets: ["Floe"]),
        .executable(name: "floe", targets: ["floe"]),
    ],
    targets: [
        .target(
            name: "Floe",
            swiftSettings: [
                // Invariant checks run in debug builds (and tests) and compile away in release.
                .define("FLOE_INVARIANTS", .when(configuration: .debug)),
            ]
        ),
        .executableTarget(name: "floe", dependencies: ["Floe"]),
        // A child process the crash tests start and kill at random points.
        .executableTarget(name: "FloeCrashChild", dependencies: ["Floe"], path: "Tests/FloeCrashChild"),
        .testTarget(name: "FloeTests", dependencies: ["Floe", "FloeCrashChild", "floe"]),
    ],
    swiftLanguageModes: [.v6]
)
