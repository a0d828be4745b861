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
        // P1, P2, Q2 and Q3 at a tenth of the size, for callgrind's instruction counts.
        .executableTarget(
            name: "floe-costs",
            dependencies: [.product(name: "Floe", package: "Floe")]
        ),
        // Counts the process's allocations for the memory workloads (M).
        .target(name: "MallocCounter"),
        .executableTarget(
            name: "floe-bench",
            dependencies: [
                "MallocCounter",
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
