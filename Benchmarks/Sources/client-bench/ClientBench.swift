import ArgumentParser
import Foundation
import NIOPosix
import ParleyCore
import ParleyKit
import ParleyKitNIO

/// client-bench: what ParleyKit costs an app, measured against a running parleyd on loopback.
@main
struct ClientBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "client-bench",
        abstract: "ParleyKit's figures against a running parleyd: start time, memory, bytes on the wire and on disk.",
        discussion: """
            Makes a fresh app with the operator token, then measures with ParleyClient over
            NIOWebSocketTransport on loopback:
              (a) start() to connected, median and p90 of --runs runs: a first start (no stored
                  session) and a restart (stored device and session, no history);
              (b) resident memory growth of a process whose client holds --conversations
                  conversations of --messages messages: fetched from the server, then loaded from
                  disk after a restart (each in a child process of its own, so that the host
                  figure is a fresh process's);
              (c) bytes exchanged, through a counting TCP relay on 127.0.0.1, on a first start, on
                  fetching that history and on the restart holding it;
              (d) bytes written to disk per received event, and the time to store one, with the
                  journal against the old whole-file rewrite of history.json.
            scripts/bench/client.sh builds parleyd and this tool (release) and runs it on a fresh server.
              client-bench --url http://127.0.0.1:8080 --admin-token T
            To profile loading: CLIENT_BENCH_KEEP=/tmp/loaded keeps a copy of the loaded folder, then
              perf record -g client-bench --probe load --probe-directory /tmp/loaded --probe-app x --probe-queue y
            (--probe index for loadHistoryIndex(), what a start reads now).
            """)

    @Option(help: "The server's base URL.")
    var url: String = "http://127.0.0.1:8080"

    @Option(name: .customLong("admin-token"), help: "parleyd's operator token (--admin-token), to create a fresh app and queue.")
    var adminToken: String?

    @Option(help: "Runs of each start-time figure.")
    var runs: Int = 20

    @Option(help: "Conversations in the loaded client.")
    var conversations: Int = 100

    @Option(help: "Messages per conversation in the loaded client.")
    var messages: Int = 100

    @Option(name: .customLong("live-events"), help: "Events received live by the loaded client, for the disk figures.")
    var liveEvents: Int = 200

    // A child run measuring one loaded client (set by the parent run, not by hand).
    @Option(help: .hidden) var probe: Probe.Kind?
    @Option(name: .customLong("probe-app"), help: .hidden) var probeApp: String?
    @Option(name: .customLong("probe-queue"), help: .hidden) var probeQueue: String?
    @Option(name: .customLong("probe-directory"), help: .hidden) var probeDirectory: String?
    @Option(name: .customLong("probe-events"), help: .hidden) var probeEvents: Int = 0

    func run() async throws {
        guard let base = URL(string: url), let host = base.host, let port = base.port else { throw ValidationError("--url needs a host and a port") }
        if let probe {
            guard let probeApp, let probeQueue, let probeDirectory else { throw ValidationError("a probe needs its app, queue and directory") }
            let result = try await Probe.run(probe, server: base, host: host, port: port, appID: AppID(rawValue: probeApp), queueID: QueueID(rawValue: probeQueue),
                                             directory: URL(fileURLWithPath: probeDirectory), events: probeEvents, conversations: conversations,
                                             messages: messages)
            print(String(decoding: try JSONEncoder().encode(result), as: UTF8.self))
            return
        }
        guard let adminToken else { throw ValidationError("--admin-token is required") }
        let setup = try await BenchSetup.create(base: base, adminToken: adminToken)
        var folders: [URL] = []
        defer { for folder in folders { try? FileManager.default.removeItem(at: folder) } }
        let relay = try await CountingRelay.start(upstreamHost: host, upstreamPort: port, group: MultiThreadedEventLoopGroup.singleton)
        let relayURL = URL(string: "http://127.0.0.1:\(relay.port)")!
        var table = FigureTable()

        // (a) start() → connected. Every run is a new client with a new transport, as an app launch.
        progress("(a) \(runs + 1) first starts and restarts")
        var firstStarts: [Duration] = [], restarts: [Duration] = []
        let restartDirectory = BenchSetup.temporaryDirectory()
        folders.append(restartDirectory)
        for run in 0..<(runs + 1) {
            let directory = BenchSetup.temporaryDirectory()
            let first = setup.client(serverURL: base, directory: directory)
            let firstTime = try await first.timeToConnected()
            await first.stop()
            try? FileManager.default.removeItem(at: directory)
            let again = setup.client(serverURL: base, directory: restartDirectory)
            let againTime = try await again.timeToConnected()
            await again.stop()
            // Run 0 warms the process up (URLSession, event loops, the first connections); not counted.
            if run > 0 {
                firstStarts.append(firstTime)
                restarts.append(againTime)
            }
        }
        table.add("(a) start() → connected, first start (new device)", median: firstStarts, goal: "≤ 50 ms")
        table.add("(a) start() → connected, restart (stored session, no history)", median: restarts, goal: "≤ 50 ms")

        // (c) bytes on a first start: session, socket upgrade, ready, conversation list.
        progress("(c) a first start through the relay")
        relay.reset()
        let freshDirectory = BenchSetup.temporaryDirectory()
        folders.append(freshDirectory)
        let fresh = setup.client(serverURL: relayURL, directory: freshDirectory)
        _ = try await fresh.timeToConnected()
        try await relay.waitUntilQuiet()
        let firstStartBytes = relay.counts
        await fresh.stop()
        table.add("(c) bytes on a first start (to server + to client)", value: Self.bytes(firstStartBytes), goal: "≤ 10 KB")

        // (b) memory, in child processes: a client fetching a visitor's whole history, then one
        // restarting on the same folder.
        progress("(b) writing \(conversations) × \(messages) messages over HTTP")
        let loaded = try await setup.seedHistory(conversations: conversations, messages: messages)
        let loadedDirectory = BenchSetup.temporaryDirectory()
        folders.append(loadedDirectory)
        try FileStorage(directory: loadedDirectory).saveSecrets(StoredSecrets(deviceID: loaded.deviceID))
        progress("(b) a client fetches \(loaded.events) events (child process)")
        let fetched = try probe(.fetch, setup: setup, directory: loadedDirectory, events: loaded.events)
        if let keep = ProcessInfo.processInfo.environment["CLIENT_BENCH_KEEP"] {
            try? FileManager.default.removeItem(atPath: keep)
            try FileManager.default.copyItem(at: loadedDirectory, to: URL(fileURLWithPath: keep))
        }
        progress("(b) a client restarts holding them (child process)")
        let restarted = try probe(.restart, setup: setup, directory: loadedDirectory, events: loaded.events)
        let label = "\(conversations) × \(messages)"
        table.add("(b) RSS of a running client with no history, above a fresh process (code, threads, URLSession)",
                  value: Memory.megabytes(fetched.emptyClientRSS - fetched.hostRSS), goal: "—")
        table.add("(b) RSS growth, client holding \(label) fetched from the server (list shown, no conversation opened), above that",
                  value: "\(Memory.megabytes(fetched.rss - fetched.emptyClientRSS)) (untrimmed \(Memory.megabytes(fetched.untrimmedRSS - fetched.emptyClientRSS)))",
                  goal: "≤ 5 MB")
        table.add("(b) RSS growth, the same after a restart, loaded from disk",
                  value: "\(Memory.megabytes(restarted.rss - restarted.emptyClientRSS)) (untrimmed \(Memory.megabytes(restarted.untrimmedRSS - restarted.emptyClientRSS)))",
                  goal: "≤ 5 MB")
        table.add("(b) RSS growth after that restart with all \(conversations) conversations opened (models with their messages)",
                  value: Memory.megabytes(restarted.allOpenedRSS - restarted.emptyClientRSS), goal: "—")
        table.add("(a) start() → connected, restart holding \(label) (1 run, via the relay)", value: Self.milliseconds(restarted.start), goal: "≤ 50 ms")
        table.add("(a) of which loadHistoryIndex(): summaries and last seqs, no event decoded (median of 5)", value: Self.milliseconds(restarted.indexLoad), goal: "—")
        table.add("(a) opening one conversation after that restart (its \(messages) stored events read, model published)",
                  value: Self.milliseconds(restarted.openOne), goal: "—")
        table.add("(a) loadHistory() of the \(loaded.events) stored events (one record each; what a start read before)", value: Self.milliseconds(restarted.load), goal: "—")
        table.add("(a) loadHistory() of the same journal compacted (500 events a record)", value: Self.milliseconds(restarted.compactedLoad), goal: "—")
        table.add("(c) bytes fetching \(label) (first start on that device)", value: Self.bytes(fetched.bytes), goal: "—")
        table.add("(c) bytes on the restart holding \(label) (resume \(conversations) conversations)", value: Self.bytes(restarted.bytes), goal: "—")

        // (d) disk: live events into a client holding the history; the journal grows by each event's record.
        progress("(d) \(liveEvents) live events")
        let journal = loadedDirectory.appendingPathComponent("history.log")
        let journalBefore = try Self.fileSize(journal)
        let counting = CountingStorage(directory: loadedDirectory)
        let live = setup.client(serverURL: base, directory: loadedDirectory, storage: counting)
        _ = try await live.timeToConnected()
        try await setup.post(liveEvents, messagesTo: loaded.conversations[0], token: loaded.token)
        try await live.waitUntil { counting.appendedEvents.load(ordering: .relaxed) >= liveEvents }
        await live.stop()
        let perEvent = Double(try Self.fileSize(journal) - journalBefore) / Double(liveEvents)
        let copy = try BenchSetup.temporaryCopy(of: loadedDirectory)
        folders.append(copy)
        let history = try FileStorage(directory: copy).loadHistory()
        let old = try OldStorage.measure(history)
        let new = try NewStorage.measure(history, conversation: loaded.conversations[0])
        table.add("(d) bytes written per received event, journal (history.log growth / \(liveEvents) live events)",
                  value: String(format: "%.0f B", perEvent), goal: "O(event)")
        table.add("(d) bytes written per received event, old history.json rewrite at this history", value: "\(old.bytes) B", goal: "—")
        table.add("(d) time to store one received event, journal (median of 200 appends)", value: Self.milliseconds(new), goal: "—")
        table.add("(d) time to store one received event, old rewrite (median of 10)", value: Self.milliseconds(old.time), goal: "—")

        print("client-bench: \(url), \(runs) runs, \(conversations) × \(messages) messages (\(loaded.events) events), "
              + "\(ProcessInfo.processInfo.activeProcessorCount) cores")
        table.print()
        await relay.stop()
    }

    /// Runs this tool again as a child process measuring one client, and reads its result.
    private func probe(_ kind: Probe.Kind, setup: BenchSetup, directory: URL, events: Int) throws -> Probe.Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        process.arguments = ["--url", url, "--probe", kind.rawValue, "--probe-app", setup.appID.rawValue, "--probe-queue", setup.queueID.rawValue,
                             "--probe-directory", directory.path, "--probe-events", "\(events)",
                             "--conversations", "\(conversations)", "--messages", "\(messages)"]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        guard process.terminationStatus == 0, let line = data.split(separator: UInt8(ascii: "\n")).last else {
            throw ValidationError("the \(kind.rawValue) probe failed (status \(process.terminationStatus))")
        }
        return try JSONDecoder().decode(Probe.Result.self, from: Data(line))
    }

    static func milliseconds(_ duration: Duration) -> String {
        let milliseconds = Double(duration.components.seconds) * 1000 + Double(duration.components.attoseconds) / 1e15
        return milliseconds < 1 ? String(format: "%.0f µs", milliseconds * 1000) : String(format: "%.1f ms", milliseconds)
    }

    static func bytes(_ counts: (toServer: Int, toClient: Int)) -> String {
        let total = counts.toServer + counts.toClient
        let figure = total >= 1_048_576 ? String(format: "%.2f MB", Double(total) / 1_048_576)
            : total >= 10_240 ? String(format: "%.1f KB", Double(total) / 1024) : "\(total) B"
        return "\(figure) (\(counts.toServer) to the server + \(counts.toClient) to the client)"
    }

    static func fileSize(_ url: URL) throws -> Int {
        (try FileManager.default.attributesOfItem(atPath: url.path)[.size] as? Int) ?? 0
    }
}
