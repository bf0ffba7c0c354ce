// swift-tools-version:6.2
// libFuzzer targets for Parley's parsers and rules, kept out of the main build (README.md here;
// docs/reliability.md, "Fuzzing"). Each target is an executable whose entry point is libFuzzer's
// own `main`, calling `LLVMFuzzerTestOneInput`; built and run by scripts/fuzz.sh:
//
//   swift build --package-path Fuzz --scratch-path Fuzz/.build \
//       --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address -Xswiftc -use-ld=lld
//
// (`--sanitize=fuzzer` links libFuzzer's main; a separate `--sanitize=address` would drop the
// coverage instrumentation when compiling, so ASan goes in the same swiftc flag.)
//
// Only the pure modules are linked: ParleyCore (the wire protocol), ParleyStore (the stores' rules)
// and ParleyCrypto (tokens).
import PackageDescription

/// A target's sources hold no `main`: libFuzzer's is used, so the module is parsed as a library.
let fuzzer: [SwiftSetting] = [
    .unsafeFlags(["-parse-as-library"]),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

let package = Package(
    name: "ParleyFuzz",
    platforms: [.macOS(.v14)],
    dependencies: [
        .package(name: "Parley", path: ".."),
    ],
    targets: [
        // What every target shares: reading structured values out of the fuzzer's bytes, and
        // failing loudly (a trap libFuzzer reports as a crash) when a promise is broken.
        .target(name: "FuzzSupport", path: "Sources/FuzzSupport", swiftSettings: fuzzer),

        // A WebSocket text frame into a ClientFrame, as RealtimeSession reads it.
        .executableTarget(
            name: "client-frame",
            dependencies: ["FuzzSupport", .product(name: "ParleyCore", package: "Parley")],
            swiftSettings: fuzzer
        ),
        // Forms made from the input, checked, then answers validated against them.
        .executableTarget(
            name: "form-rules",
            dependencies: [
                "FuzzSupport",
                .product(name: "ParleyCore", package: "Parley"), .product(name: "ParleyStore", package: "Parley"),
            ],
            swiftSettings: fuzzer
        ),
        // Timestamp.parse, and format ∘ parse round trips.
        .executableTarget(
            name: "timestamp",
            dependencies: ["FuzzSupport", .product(name: "ParleyCore", package: "Parley")],
            swiftSettings: fuzzer
        ),
        // The Masker's built-in detectors over any text.
        .executableTarget(
            name: "masking",
            dependencies: ["FuzzSupport", .product(name: "ParleyCore", package: "Parley")],
            swiftSettings: fuzzer
        ),
        // An admin's custom masking rule through MaskingRules.check(), then run (slower: the check probes).
        .executableTarget(
            name: "masking-rules",
            dependencies: ["FuzzSupport", .product(name: "ParleyCore", package: "Parley")],
            swiftSettings: fuzzer
        ),
        // FileType.sniff and FileType.decide over an upload's first bytes.
        .executableTarget(
            name: "file-type",
            dependencies: ["FuzzSupport", .product(name: "ParleyCore", package: "Parley")],
            swiftSettings: fuzzer
        ),
        // The token parsers: visitor tokens (sign, read, tamper) and a user token's JWT header.
        .executableTarget(
            name: "tokens",
            dependencies: ["FuzzSupport", .product(name: "ParleyCrypto", package: "Parley")],
            swiftSettings: fuzzer
        ),
    ]
)
