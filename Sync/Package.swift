// swift-tools-version:6.0
import PackageDescription

// The sync server (Hummingbird 2 and PostgresNIO), the WebSocket transport for FloeSync
// clients, and a test client. A package of its own, so that Floe and FloeSync keep no
// package dependencies.
let package = Package(
    name: "FloeSyncServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "floe-sync-server", targets: ["floe-sync-server"]),
        .executable(name: "floe-sync-client", targets: ["floe-sync-client"]),
        .library(name: "FloeSyncWebSocket", targets: ["FloeSyncWebSocket"]),
    ],
    dependencies: [
        .package(name: "Floe", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
    ],
    targets: [
        .executableTarget(name: "floe-sync-server", dependencies: [
            .product(name: "FloeSync", package: "Floe"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
        ]),
        .target(name: "FloeSyncWebSocket", dependencies: [
            .product(name: "FloeSync", package: "Floe"),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        ]),
        .executableTarget(name: "floe-sync-client", dependencies: [
            "FloeSyncWebSocket",
            .product(name: "Floe", package: "Floe"),
            .product(name: "FloeSync", package: "Floe"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
