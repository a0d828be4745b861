// swift-tools-version:6.0
import PackageDescription

// The sync server (Hummingbird 2 and PostgresNIO, JWTs checked with jwt-kit, TLS with
// swift-nio-ssl, metrics through swift-metrics in Prometheus's format, logs through swift-log),
// the WebSocket transport for FloeSync clients, a test client, and the attack runner of the
// opt-in security test. A package of its own, so that Floe and FloeSync keep no
// package dependencies.
let package = Package(
    name: "FloeSyncServer",
    platforms: [.macOS(.v15)],
    products: [
        .executable(name: "floe-sync-server", targets: ["floe-sync-server"]),
        .executable(name: "floe-sync-client", targets: ["floe-sync-client"]),
        .library(name: "FloeSyncWebSocket", targets: ["FloeSyncWebSocket"]),
        .executable(name: "floe-sync-attack", targets: ["floe-sync-attack"]),
    ],
    dependencies: [
        .package(name: "Floe", path: ".."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
        .package(url: "https://github.com/vapor/postgres-nio", from: "1.33.2"),
        .package(url: "https://github.com/vapor/jwt-kit", from: "5.7.1"),
        .package(url: "https://github.com/apple/swift-nio-ssl", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-nio", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    ],
    targets: [
        .executableTarget(name: "floe-sync-server", dependencies: [
            .product(name: "FloeSync", package: "Floe"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
            .product(name: "PostgresNIO", package: "postgres-nio"),
            .product(name: "HummingbirdTLS", package: "hummingbird"),
            .product(name: "HummingbirdCore", package: "hummingbird"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
            .product(name: "NIOWebSocket", package: "swift-nio"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "Metrics", package: "swift-metrics"),
            .product(name: "Prometheus", package: "swift-prometheus"),
            .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        ]),
        .target(name: "FloeSyncWebSocket", dependencies: [
            .product(name: "FloeSync", package: "Floe"),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            .product(name: "NIOSSL", package: "swift-nio-ssl"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
        .executableTarget(name: "floe-sync-client", dependencies: [
            "FloeSyncWebSocket",
            .product(name: "Floe", package: "Floe"),
            .product(name: "FloeSync", package: "Floe"),
        ]),
        .executableTarget(name: "floe-sync-attack", dependencies: [
            .product(name: "FloeSync", package: "Floe"),
            .product(name: "JWTKit", package: "jwt-kit"),
            .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
            .product(name: "NIOCore", package: "swift-nio"),
            .product(name: "NIOPosix", package: "swift-nio"),
            .product(name: "NIOHTTP1", package: "swift-nio"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
