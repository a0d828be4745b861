// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "TodoServer",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Floe", path: "../.."),
        .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    ],
    targets: [
        .executableTarget(name: "TodoServer", dependencies: [
            .product(name: "Floe", package: "Floe"),
            .product(name: "Hummingbird", package: "hummingbird"),
            .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        ]),
    ],
    swiftLanguageModes: [.v6]
)
