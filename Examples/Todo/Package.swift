// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Todo",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Floe", path: "../.."),
    ],
    targets: [
        .executableTarget(name: "todo", dependencies: [.product(name: "Floe", package: "Floe")]),
    ],
    swiftLanguageModes: [.v6]
)
