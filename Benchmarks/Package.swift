// swift-tools-version:6.2
// Benchmarks, kept out of the main build:
//   swift build -c release --package-path Benchmarks
//   Benchmarks/.build/release/store-bench …     durable commits through the SQLite store
//   Benchmarks/.build/release/parley-load …     WebSocket load generator (parleyd, or the Go relay floor)
//   Benchmarks/.build/release/client-bench …    ParleyKit against parleyd: start time, memory, bytes (scripts/bench/client.sh)
//   Benchmarks/.build/release/mask-bench …      data masking's cost per text on the send path
//   Benchmarks/.build/release/search-bench …    desk search on a million stored messages (scripts/bench/search.sh)
import PackageDescription

let package = Package(
    name: "ParleyBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Parley", path: ".."),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/HdrHistogram/hdrhistogram-swift.git", from: "0.2.0"),
    ],
    targets: [
        // Durable commits per second through the SQLite store's group committer.
        .executableTarget(
            name: "store-bench",
            dependencies: [
                .product(name: "ParleyCore", package: "Parley"),
                .product(name: "ParleyStore", package: "Parley"),
                .product(name: "ParleyStoreSQLite", package: "Parley"),
            ]
        ),
        // Visitor/agent pairs over /v1/realtime (or the Go relay floor): rate, latency, memory, storms.
        // Plain SwiftNIO channel handlers on one event loop, so the generator costs one core at most.
        .executableTarget(
            name: "parley-load",
            dependencies: [
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Histogram", package: "hdrhistogram-swift"),
            ],
            swiftSettings: [.swiftLanguageMode(.v5)]
        ),
        // Desk search over a large stored corpus (SQLite or PostgreSQL), beside a by-id read.
        .executableTarget(
            name: "search-bench",
            dependencies: [
                .product(name: "ParleyCore", package: "Parley"),
                .product(name: "ParleyStore", package: "Parley"),
                .product(name: "ParleyStoreSQLite", package: "Parley"),
                .product(name: "ParleyStorePostgres", package: "Parley"),
            ]
        ),
        // Masker.mask over typical texts: what masking adds to each send, on the server and the device.
        .executableTarget(
            name: "mask-bench",
            dependencies: [.product(name: "ParleyCore", package: "Parley")]
        ),
        // ParleyKit as an app uses it, against a running parleyd on loopback: start() to connected,
        // resident memory with a loaded history, bytes on the wire (a counting relay) and on disk.
        .executableTarget(
            name: "client-bench",
            dependencies: [
                .product(name: "ParleyCore", package: "Parley"),
                .product(name: "ParleyKit", package: "Parley"),
                .product(name: "ParleyKitNIO", package: "Parley"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ]
        ),
    ]
)
