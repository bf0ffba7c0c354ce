import ArgumentParser
import Foundation
import ParleyCore
import ParleyKit

/// One loaded client measured in a process of its own (a child of the main run), so that the host
/// figure is that of a fresh process and nothing of the other measurements stays in its heap.
enum Probe {
    enum Kind: String, ExpressibleByArgument, Sendable {
        /// A first start on a device whose history is on the server: the client fetches it all.
        case fetch
        /// A restart on the folder a fetch filled: the history comes from disk.
        case restart
        /// `loadHistory()` of a folder 20 times, nothing else (to profile it: `perf record`).
        case load
    }

    struct Result: Codable {
        var hostRSS: Int
        var emptyClientRSS: Int
        var rss: Int
        var untrimmedRSS: Int
        var allOpenedRSS: Int
        var startNanoseconds: Int64
        var loadNanoseconds: Int64
        var compactedLoadNanoseconds: Int64
        var toServer: Int
        var toClient: Int

        var start: Duration { .nanoseconds(startNanoseconds) }
        var load: Duration { .nanoseconds(loadNanoseconds) }
        var compactedLoad: Duration { .nanoseconds(compactedLoadNanoseconds) }
        var bytes: (toServer: Int, toClient: Int) { (toServer, toClient) }
    }

    static func run(_ kind: Kind, server: URL, host: String, port: Int, appID: AppID, queueID: QueueID, directory: URL,
                    events: Int, conversations: Int, messages: Int) async throws -> Result {
        if kind == .load {
            for _ in 0..<20 { _ = try FileStorage(directory: directory).loadHistory() }
            return Result(hostRSS: 0, emptyClientRSS: 0, rss: 0, untrimmedRSS: 0, allOpenedRSS: 0, startNanoseconds: 0, loadNanoseconds: 0,
                          compactedLoadNanoseconds: 0, toServer: 0, toClient: 0)
        }
        let relay = try await CountingRelay.start(upstreamHost: host, upstreamPort: port, group: .singletonMultiThreadedEventLoopGroup)
        let relayURL = URL(string: "http://127.0.0.1:\(relay.port)")!
        let hostRSS = Memory.residentBytes(trimmed: true)
        // What any running client costs (code paged in, threads, URLSession): an empty client on a
        // new device, started and stopped. The history's own cost is measured above this.
        let emptyDirectory = BenchSetup.temporaryDirectory()
        let empty = BenchSetup.client(serverURL: relayURL, appID: appID, queueID: queueID, directory: emptyDirectory)
        _ = try await empty.timeToConnected()
        try await relay.waitUntilQuiet()
        await empty.stop()
        try? FileManager.default.removeItem(at: emptyDirectory)
        let emptyClientRSS = Memory.residentBytes(trimmed: true)
        relay.reset()

        let storage = CountingStorage(directory: directory)
        let client = BenchSetup.client(serverURL: relayURL, appID: appID, queueID: queueID, directory: directory, storage: storage)
        let start = try await client.timeToConnected()
        if kind == .fetch {
            try await client.waitUntil { storage.appendedEvents.load(ordering: .relaxed) >= events }
        }
        try await relay.waitUntilQuiet()
        let bytes = relay.counts
        let untrimmedRSS = Memory.residentBytes(trimmed: false)
        let rss = Memory.residentBytes(trimmed: true)
        let models = try await client.openEveryConversation(count: conversations, messages: messages)
        let allOpenedRSS = Memory.residentBytes(trimmed: true)
        await client.stop()
        _ = models

        // loadHistory() alone, on a copy, median of 5 (after the memory figures: it allocates the whole history).
        var load = Duration.zero, compactedLoad = Duration.zero
        if kind == .restart {
            let copy = try BenchSetup.temporaryCopy(of: directory)
            defer { try? FileManager.default.removeItem(at: copy) }
            load = try medianLoadTime(copy)
            // The same history compacted: one record per 500 events instead of one per event.
            try FileStorage(directory: copy).compact()
            compactedLoad = try medianLoadTime(copy)
        }
        await relay.stop()
        return Result(hostRSS: hostRSS, emptyClientRSS: emptyClientRSS, rss: rss, untrimmedRSS: untrimmedRSS, allOpenedRSS: allOpenedRSS,
                      startNanoseconds: nanoseconds(start), loadNanoseconds: nanoseconds(load),
                      compactedLoadNanoseconds: nanoseconds(compactedLoad), toServer: bytes.toServer, toClient: bytes.toClient)
    }

    /// The median of 5 `loadHistory()` calls, each on a new FileStorage.
    private static func medianLoadTime(_ directory: URL) throws -> Duration {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<5 {
            let begin = clock.now
            _ = try FileStorage(directory: directory).loadHistory()
            times.append(clock.now - begin)
        }
        return times.sorted()[2]
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
