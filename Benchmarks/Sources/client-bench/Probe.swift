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
        /// `loadHistoryIndex()` of a folder 20 times, nothing else (to profile a lazy start).
        case index
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
        var indexLoadNanoseconds: Int64
        var openOneNanoseconds: Int64
        var toServer: Int
        var toClient: Int

        var start: Duration { .nanoseconds(startNanoseconds) }
        var load: Duration { .nanoseconds(loadNanoseconds) }
        var compactedLoad: Duration { .nanoseconds(compactedLoadNanoseconds) }
        var indexLoad: Duration { .nanoseconds(indexLoadNanoseconds) }
        var openOne: Duration { .nanoseconds(openOneNanoseconds) }
        var bytes: (toServer: Int, toClient: Int) { (toServer, toClient) }
    }

    static func run(_ kind: Kind, server: URL, host: String, port: Int, appID: AppID, queueID: QueueID, directory: URL,
                    events: Int, conversations: Int, messages: Int) async throws -> Result {
        if kind == .load || kind == .index {
            for _ in 0..<20 {
                let storage = FileStorage(directory: directory)
                if kind == .load { _ = try storage.loadHistory() } else { _ = try storage.loadHistoryIndex() }
            }
            return Result(hostRSS: 0, emptyClientRSS: 0, rss: 0, untrimmedRSS: 0, allOpenedRSS: 0, startNanoseconds: 0, loadNanoseconds: 0,
                          compactedLoadNanoseconds: 0, indexLoadNanoseconds: 0, openOneNanoseconds: 0, toServer: 0, toClient: 0)
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
        // After a restart: the time to one conversation's screen (its stored events read, its model published).
        var openOne = Duration.zero
        if kind == .restart, let first = await client.state.conversations.first {
            let clock = ContinuousClock()
            let begin = clock.now
            let model = try await client.conversation(first.id)
            openOne = clock.now - begin
            _ = model
        }
        let models = try await client.openEveryConversation(count: conversations, messages: messages)
        let allOpenedRSS = Memory.residentBytes(trimmed: true)
        await client.stop()
        _ = models

        // loadHistory() alone, on a copy, median of 5 (after the memory figures: it allocates the whole history).
        var load = Duration.zero, compactedLoad = Duration.zero, indexLoad = Duration.zero
        if kind == .restart {
            let copy = try BenchSetup.temporaryCopy(of: directory)
            defer { try? FileManager.default.removeItem(at: copy) }
            load = try medianLoadTime(copy)
            indexLoad = try medianLoadTime(copy) { _ = try $0.loadHistoryIndex() }
            // The same history compacted: one record per 500 events instead of one per event.
            try FileStorage(directory: copy).compact()
            compactedLoad = try medianLoadTime(copy)
        }
        await relay.stop()
        return Result(hostRSS: hostRSS, emptyClientRSS: emptyClientRSS, rss: rss, untrimmedRSS: untrimmedRSS, allOpenedRSS: allOpenedRSS,
                      startNanoseconds: nanoseconds(start), loadNanoseconds: nanoseconds(load),
                      compactedLoadNanoseconds: nanoseconds(compactedLoad), indexLoadNanoseconds: nanoseconds(indexLoad),
                      openOneNanoseconds: nanoseconds(openOne), toServer: bytes.toServer, toClient: bytes.toClient)
    }

    /// The median of 5 calls of `load` (default `loadHistory()`), each on a new FileStorage.
    private static func medianLoadTime(_ directory: URL, _ load: (FileStorage) throws -> Void = { _ = try $0.loadHistory() }) throws -> Duration {
        let clock = ContinuousClock()
        var times: [Duration] = []
        for _ in 0..<5 {
            let begin = clock.now
            try load(FileStorage(directory: directory))
            times.append(clock.now - begin)
        }
        return times.sorted()[2]
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}
