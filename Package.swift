// swift-tools-version:6.0
import PackageDescription

let package = Package(
    name: "Rewind",
    platforms: [.macOS(.v14)],
    products: [
        .library(name: "RewindJSON", targets: ["RewindJSON"]),
        .library(name: "RewindWebSocket", targets: ["RewindWebSocket"]),
        .library(name: "RewindLog", targets: ["RewindLog"]),
        .library(name: "Rewind", targets: ["Rewind"]),
        .executable(name: "rewind", targets: ["rewind"]),
        .executable(name: "rewind-bench", targets: ["RewindBench"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.5.0"),
    ],
    targets: [
        .target(name: "RewindJSON"),
        .target(name: "RewindLog", dependencies: ["RewindJSON", "CSQLite"]),
        .systemLibrary(
            name: "CSQLite",
            pkgConfig: "sqlite3",
            providers: [.apt(["libsqlite3-dev"])]
        ),
        .systemLibrary(
            name: "CLibWebSockets",
            pkgConfig: "libwebsockets",
            providers: [.apt(["libwebsockets-dev"])]
        ),
        // The one libwebsockets wrapper (server and client); no other module imports CLibWebSockets.
        .target(name: "RewindWebSocket", dependencies: ["CLibWebSockets"]),
        .executableTarget(
            name: "rewind",
            dependencies: [
                "RewindJSON",
                "RewindLog",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
        // What apps import: store, effects, recorder, sinks, replay, adapters.
        .target(name: "Rewind", dependencies: ["RewindJSON", "RewindLog"]),
        .executableTarget(
            name: "RewindBench",
            dependencies: ["RewindJSON", "RewindLog", "Rewind"]
        ),
        .testTarget(name: "RewindJSONTests", dependencies: ["RewindJSON"]),
        .testTarget(name: "RewindWebSocketTests", dependencies: ["RewindWebSocket"]),
        .testTarget(name: "RewindLogTests", dependencies: ["RewindLog"]),
        .testTarget(name: "RewindTests", dependencies: ["Rewind", "RewindLog", "RewindJSON"]),
        .testTarget(name: "SystemLibraryTests", dependencies: ["CSQLite", "CLibWebSockets"]),
        // Runs the built `rewind` binary; depending on it makes `swift build --build-tests` build it.
        .testTarget(name: "RewindCLITests", dependencies: ["rewind"]),
    ],
    swiftLanguageModes: [.v6]
)
