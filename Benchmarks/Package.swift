// swift-tools-version:6.2
// Benchmarks, kept out of the main build: `swift run -c release --package-path Benchmarks store-bench`.
import PackageDescription

let package = Package(
    name: "ParleyBenchmarks",
    platforms: [.macOS(.v15)],
    dependencies: [
        .package(name: "Parley", path: ".."),
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
    ]
)
