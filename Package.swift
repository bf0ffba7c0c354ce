// swift-tools-version:6.2
// Package.swift is the architecture diagram: dependencies point inward, toward ParleyCore.
//
//   client:  ParleyCore  <-  ParleyKit  <-  ParleyKitNIO  <-  parley (CLI)
//   server:  ParleyCore  <-  ParleyStore  <-  ParleyStoreSQLite, ParleyStorePostgres
//                                 ^
//                            ParleyServer  <-  parleyd
//   shared:  ParleyCrypto (push encryption) <- ParleyKit, ParleyServer
// An app that embeds ParleyKit links neither SwiftNIO nor anything of the server.
import PackageDescription

let strict: [SwiftSetting] = [
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "Parley",
    platforms: [.macOS(.v14), .iOS(.v17)],
    products: [
        .library(name: "ParleyCore", targets: ["ParleyCore"]),
        .library(name: "ParleyKit", targets: ["ParleyKit"]),
        .library(name: "ParleyKitNIO", targets: ["ParleyKitNIO"]),
        .library(name: "ParleyCrypto", targets: ["ParleyCrypto"]),
        .library(name: "ParleyStore", targets: ["ParleyStore"]),
        .library(name: "ParleyServer", targets: ["ParleyServer"]),
        .library(name: "ParleyStoreSQLite", targets: ["ParleyStoreSQLite"]),
        .library(name: "ParleyStorePostgres", targets: ["ParleyStorePostgres"]),
        .executable(name: "parleyd", targets: ["parleyd"]),
        .executable(name: "parley", targets: ["parley"]),
    ],
    dependencies: [
        .package(url: "https://github.com/hummingbird-project/hummingbird.git", from: "2.28.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-websocket.git", from: "2.8.1"),
        .package(url: "https://github.com/hummingbird-project/hummingbird-auth.git", from: "2.5.0"),
        .package(url: "https://github.com/hummingbird-project/swift-websocket.git", from: "1.6.2"),
        .package(url: "https://github.com/groue/GRDB.swift.git", from: "7.10.0"),
        .package(url: "https://github.com/vapor/postgres-nio.git", from: "1.33.2"),
        .package(url: "https://github.com/apple/swift-crypto.git", from: "4.0.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.6"),
        .package(url: "https://github.com/apple/swift-log.git", from: "1.16.2"),
        .package(url: "https://github.com/apple/swift-argument-parser.git", from: "1.8.2"),
        .package(url: "https://github.com/apple/swift-http-types.git", from: "1.8.0"),
        .package(url: "https://github.com/swift-server/swift-service-lifecycle.git", from: "2.13.0"),
        .package(url: "https://github.com/apple/swift-metrics.git", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus.git", from: "2.4.1"),
        .package(url: "https://github.com/vapor/jwt-kit.git", from: "5.7.1"),
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.1"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.4"),
        .package(url: "https://github.com/adam-fowler/compress-nio.git", from: "1.5.0"),
    ],
    targets: [
        // MARK: - Core: the wire protocol, shared by server, SDK, CLI, desk and web chat.
        .target(name: "ParleyCore", swiftSettings: strict),

        // The cryptography the SDK and the server share: the push content coding (RFC 8188/8291).
        .target(
            name: "ParleyCrypto",
            dependencies: [.product(name: "Crypto", package: "swift-crypto")],
            swiftSettings: strict
        ),

        // MARK: - Client
        // The SDK core: client, conversations, outbox, reconnect, state. Linux and Apple; no SwiftNIO.
        .target(
            name: "ParleyKit",
            dependencies: [
                "ParleyCore", "ParleyCrypto",
                .product(name: "Logging", package: "swift-log"),
                // SHA-256 for key pins and AES-GCM for the encrypted files; CryptoKit on Apple platforms.
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            swiftSettings: strict
        ),
        // The WebSocket transport on SwiftNIO (swift-websocket's WSClient), for Linux, the CLI and tests.
        .target(
            name: "ParleyKitNIO",
            dependencies: [
                "ParleyKit",
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "WSCore", package: "swift-websocket"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),

        // MARK: - Server
        // The storage seam: domain-level operations and records, no database code.
        .target(
            name: "ParleyStore",
            dependencies: ["ParleyCore", .product(name: "CoreMetrics", package: "swift-metrics")],
            swiftSettings: strict
        ),
        // The embedded default store: SQLite through GRDB, one group-committing writer.
        .target(
            name: "ParleyStoreSQLite",
            dependencies: [
                "ParleyCore", "ParleyStore",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // The store for several nodes: one shared PostgreSQL database through postgres-nio.
        .target(
            name: "ParleyStorePostgres",
            dependencies: [
                "ParleyCore", "ParleyStore",
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),
        // The server as a library: routes, realtime hub, routing engine. buildApplication is its door.
        .target(
            name: "ParleyServer",
            dependencies: [
                "ParleyCore", "ParleyStore", "ParleyCrypto",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
                .product(name: "HummingbirdTLS", package: "hummingbird"),
                .product(name: "HummingbirdBcrypt", package: "hummingbird-auth"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                // gzip for the static files (the chat page), once at load time.
                .product(name: "CompressNIO", package: "compress-nio"),
            ],
            resources: [.copy("Desk"), .copy("Chat"), .copy("OpenAPI/openapi.json")],
            swiftSettings: strict
        ),
        .executableTarget(
            name: "parleyd",
            dependencies: [
                "ParleyCore", "ParleyStore", "ParleyServer", "ParleyStoreSQLite", "ParleyStorePostgres",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "CoreMetrics", package: "swift-metrics"),
            ],
            swiftSettings: strict
        ),

        // MARK: - Tools
        // The command-line tool: a visitor and an agent in the terminal, and administration.
        .executableTarget(
            name: "parley",
            dependencies: [
                "ParleyCore", "ParleyKit", "ParleyKitNIO",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
            ],
            swiftSettings: strict
        ),

        // MARK: - Tests
        // The real server in-process on 127.0.0.1:0 with a fresh SQLite file, for integration tests.
        .target(
            name: "ParleyTestSupport",
            dependencies: [
                "ParleyCore", "ParleyServer", "ParleyStore", "ParleyStoreSQLite", "ParleyStorePostgres",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                // HTTPS to a test server that serves a test certificate (URLSession cannot trust one on Linux).
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            path: "Tests/ParleyTestSupport",
            swiftSettings: strict
        ),
        .testTarget(
            name: "ParleyCoreTests",
            dependencies: ["ParleyCore", "ParleyTestSupport"],
            exclude: ["GenesysFixtures"],
            resources: [.copy("Fixtures")],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ParleyStoreTests",
            dependencies: [
                "ParleyCore", "ParleyStore", "ParleyStoreSQLite", "ParleyStorePostgres", "ParleyTestSupport",
                .product(name: "GRDB", package: "GRDB.swift"),
                .product(name: "PostgresNIO", package: "postgres-nio"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        .testTarget(
            name: "ParleyServerTests",
            dependencies: [
                "ParleyCore", "ParleyStore", "ParleyServer", "ParleyStoreSQLite", "ParleyStorePostgres", "ParleyTestSupport",
                .product(name: "JWTKit", package: "jwt-kit"),
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "WSClient", package: "swift-websocket"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOWebSocket", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "HTTPTypes", package: "swift-http-types"),
                .product(name: "Logging", package: "swift-log"),
            ],
            swiftSettings: strict
        ),
        // ParleyKit against the real server in-process, and its state machines alone.
        .testTarget(
            name: "ParleyKitTests",
            dependencies: [
                "ParleyCore", "ParleyCrypto", "ParleyKit", "ParleyKitNIO", "ParleyServer", "ParleyStore", "ParleyStoreSQLite", "ParleyTestSupport",
                .product(name: "Hummingbird", package: "hummingbird"),
                .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Crypto", package: "swift-crypto"),
            ],
            // The chat page's bridge fixtures are read from the source tree (#filePath), as the Chromium suite writes them.
            exclude: ["Fixtures"],
            swiftSettings: strict
        ),
        // Starts parleyd as a child process, kills it with SIGKILL, and counts lost and duplicated messages.
        .testTarget(
            name: "ParleyDurabilityTests",
            dependencies: [
                "ParleyCore", "ParleyKit", "ParleyKitNIO", "ParleyTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: strict
        ),
    ]
)
