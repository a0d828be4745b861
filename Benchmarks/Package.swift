// swift-tools-version:6.0
import PackageDescription

// The benchmark lives in its own package so that the library itself keeps no package
// dependencies: GRDB is needed only here, as the peer every figure is compared against.
let package = Package(
    name: "FloeBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        // Named explicitly: a path dependency is otherwise known by its folder name, which
        // differs between checkouts.
        .package(name: "Floe", path: ".."),
        .package(url: "https://github.com/groue/GRDB.swift", exact: "7.10.0"),
    ],
    targets: [
        .executableTarget(
            name: "floe-bench",
            dependencies: [
                .product(name: "Floe", package: "Floe"),
                .product(name: "GRDB", package: "GRDB.swift"),
            ]
        ),
        // One workload at a time on Floe alone, for instruction profiles under callgrind.
        .executableTarget(
            name: "floe-profile",
            dependencies: [.product(name: "Floe", package: "Floe")]
        ),
    ],
    swiftLanguageModes: [.v6]
)
