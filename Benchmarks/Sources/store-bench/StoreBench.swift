import Foundation
import ParleyCore
import ParleyStore
import ParleyStoreSQLite

/// Measures durable message commits per second through `SQLiteStore` (WAL, synchronous=FULL,
/// group commit) with 1…N concurrent writers, each writing into its own conversation, and prints
/// how many commits shared each transaction (fsync).
///
///     swift run -c release --package-path Benchmarks store-bench [seconds-per-step] [writers…]
@main
struct StoreBench {
    static func main() async throws {
        let arguments = CommandLine.arguments.dropFirst()
        let seconds = arguments.first.flatMap(Double.init) ?? 3
        let steps = arguments.dropFirst().compactMap(Int.init)
        print("store-bench: SQLite WAL synchronous=FULL, \(seconds) s per step")
        print("writers  commits/s  mean-latency-ms  changes/transaction  largest-batch")
        for writers in steps.isEmpty ? [1, 8, 64, 256] : steps {
            try await run(writers: writers, seconds: seconds)
        }
    }

    static func run(writers: Int, seconds: Double) async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-bench-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = try SQLiteStore(path: directory.appendingPathComponent("bench.sqlite").path)
        let app = App(id: .generate(), name: "bench", createdAt: Date())
        try await store.insertApp(app, secretKey: "sk")
        let queue = Queue(id: .generate(), appID: app.id, name: "q", createdAt: Date())
        try await store.insertQueue(queue)
        var conversations: [(ConversationID, VisitorID)] = []
        for index in 0..<writers {
            let visitor = try await store.upsertVisitor(app: app.id, deviceID: "bench-device-\(index)", profile: .init(), at: Date())
            let id = ConversationID.generate()
            _ = try await store.commit(.open(.init(id: id, appID: app.id, queueID: queue.id, visitorID: visitor.id, visitorName: nil,
                                                   subject: nil, attributes: [:], queueRank: Int64(index), at: Date())))
            conversations.append((id, visitor.id))
        }
        let before = store.groupCommitStatistics
        let deadline = ContinuousClock.now + .seconds(seconds)
        let started = ContinuousClock.now
        let (count, latency) = try await withThrowingTaskGroup(of: (Int, Duration).self) { group in
            for (id, visitor) in conversations {
                group.addTask {
                    var count = 0
                    var latency = Duration.zero
                    while ContinuousClock.now < deadline {
                        let sent = ContinuousClock.now
                        _ = try await store.commit(.postMessage(.init(
                            conversationID: id, appID: app.id, author: .visitor(visitor, name: nil), clientMessageID: UUID().uuidString,
                            text: "a benchmark message of a typical length, about sixty chars", reopenRank: 0, at: Date())))
                        latency += ContinuousClock.now - sent
                        count += 1
                    }
                    return (count, latency)
                }
            }
            return try await group.reduce((0, Duration.zero)) { ($0.0 + $1.0, $0.1 + $1.1) }
        }
        let elapsed = ContinuousClock.now - started
        let after = store.groupCommitStatistics
        let rate = Double(count) / (Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18)
        let meanMs = count == 0 ? 0 : (Double(latency.components.seconds) * 1e3 + Double(latency.components.attoseconds) / 1e15) / Double(count)
        let perTransaction = Double(after.units - before.units) / Double(max(1, after.transactions - before.transactions))
        print(String(format: "%7d  %9.0f  %15.2f  %19.1f  %13d", writers, rate, meanMs, perTransaction, after.largestBatch))
        try await store.close()
    }
}
