import Foundation
import NIOCore

/// The reconnect storm over XMPP (`--storm K --target prosody`). parleyd's visitors resubscribe
/// from their cursor; the XMPP counterpart is stream management resumption (XEP-0198): the server
/// keeps a dropped session for a while, queues what it sends to it, and resends that queue when
/// the client resumes. Each visitor's missed messages come from one of a few writer accounts,
/// as parleyd's come from the visitor's other device.
final class XMPPStormEngine: XMPPClientDelegate, @unchecked Sendable {
    let count: Int
    let missed: Int
    var writers: [XMPPClient] = []
    /// Each visitor's current connection (the sockets' delegates are weak).
    var visitors: [XMPPClient] = []
    var ready = 0
    var closed = 0
    var errors: [String] = []
    /// Counting starts with the storm; nothing reaches a visitor before it.
    var counting = false
    private var received: [[Bool]]
    private(set) var receivedCount: [Int]
    private(set) var caughtUpCount = 0
    private(set) var lastCaughtUp: UInt64 = 0
    private(set) var duplicates = 0
    private(set) var strays = 0
    private var writerSent: [Int] = []
    private var writerHandled: [Int] = []

    init(count: Int, missed: Int) {
        self.count = count
        self.missed = missed
        received = Array(repeating: Array(repeating: false, count: missed), count: count)
        receivedCount = Array(repeating: 0, count: count)
    }

    /// Writer j sends visitor k's messages for every k ≡ j (mod writers), ids `m<k>.<m>.0`, then
    /// one ack request.
    func sendMissed(domain: String, usernames: [String]) {
        writerSent = Array(repeating: 0, count: writers.count)
        writerHandled = Array(repeating: 0, count: writers.count)
        for k in 0..<count {
            let j = k % writers.count
            let to = XMPP.fullJID(username: usernames[k], domain: domain)
            for m in 0..<missed {
                writers[j].write(XMPP.chat(to: to, id: "m\(k).\(m).0", body: "while you were away \(m)"))
                writerSent[j] += 1
            }
        }
        for writer in writers {
            writer.write(XMPP.requestAck)
            writer.socket.flushIfNeeded()
        }
    }

    /// The server has handled every message the writers sent: archived and queued for the
    /// hibernating sessions.
    var writesHandled: Bool { writerHandled == writerSent }

    var lost: Int { receivedCount.reduce(0) { $0 + (missed - $1) } }

    // MARK: XMPPClientDelegate

    func xmppReady(_ client: XMPPClient) { ready += 1 }
    func xmppRegistered(_ client: XMPPClient) {}
    func xmppClosed(_ client: XMPPClient) { closed += 1 }

    func xmpp(_ client: XMPPClient, failed reason: String) {
        if errors.count < 10 { errors.append(reason) }
    }

    func xmpp(_ client: XMPPClient, handled: Int) {
        let j = client.socket.index - count
        if j >= 0 { writerHandled[j] = handled }
    }

    func xmpp(_ client: XMPPClient, stanza: StartTag) {
        guard counting, stanza.isNamed("message"), !stanza.attributeIs("type", "error") else { return }
        let i = client.socket.index
        guard let id = stanza.attribute("id"), id.count > 1, stanza.bytes[id.lowerBound] == UInt8(ascii: "m"),
              let (k, m, _) = PairEngine.messageNumbers(in: stanza.bytes, from: id.lowerBound + 1, to: id.upperBound),
              k == i, m < missed
        else {
            strays += 1
            return
        }
        if received[i][m] {
            duplicates += 1
            return
        }
        received[i][m] = true
        receivedCount[i] += 1
        if receivedCount[i] == missed {
            caughtUpCount += 1
            lastCaughtUp = nowNanos()
        }
    }
}

enum XMPPStorm {
    /// K visitors log in with resumable stream management and lose their connections at once;
    /// while they are away `missed` messages are sent to each; then all reconnect at once, log in
    /// and resume. Measures the time until every one has every missed message.
    static func run(_ context: RunContext, count: Int, missed: Int) async throws -> [String: Any] {
        let loop = context.group.next()
        let engine = XMPPStormEngine(count: count, missed: missed)
        let domain = context.xmppDomain
        let usernames = (0..<count).map { "storm\($0)" }
        let writerNames = (0..<min(32, count)).map { "stormwriter\($0)" }
        try await context.registerXMPPAccounts(usernames + writerNames)

        // First connections: the visitors ask for resumption; the writers only send.
        let first = (0..<count).map {
            XMPPClient(index: $0, login: XMPPLogin(domain: domain, username: usernames[$0], goal: .login, resumable: true), delegate: engine)
        }
        let writers = writerNames.indices.map {
            XMPPClient(index: count + $0, login: XMPPLogin(domain: domain, username: writerNames[$0], goal: .login), delegate: engine)
        }
        try await loop.submit { engine.visitors = first; engine.writers = writers }.get()
        try await context.connectAll((first + writers).map { ($0.socket, XMPP.path, XMPP.upgradeHeaders, nil) }, width: 256)
        let everyone = count + writers.count
        try await context.wait("logins", timeout: 120, on: loop) { engine.ready == everyone || !engine.errors.isEmpty }
        try await throwIfFailed(engine, loop: loop)
        print("\(count) visitors logged in with resumable stream management")

        // Drop them all at once, keeping what each needs to resume.
        let resumption: [(token: String, handled: Int)] = try await loop.submit {
            let state = first.map { ($0.resumptionToken ?? "", $0.stanzasReceived) }
            for client in first { client.socket.drop() }
            return state
        }.get()
        try await context.wait("the drop", on: loop) { engine.closed == count }

        // While they are away: the missed messages, handled (archived, queued) before anyone returns.
        try await loop.submit { engine.sendMissed(domain: domain, usernames: usernames) }.get()
        try await context.wait("the writes", timeout: 120, on: loop) { engine.writesHandled || !engine.errors.isEmpty }
        try await throwIfFailed(engine, loop: loop)

        // The storm: everyone reconnects at once, logs in and resumes.
        let second = (0..<count).map {
            XMPPClient(index: $0, login: XMPPLogin(domain: domain, username: usernames[$0],
                                                   goal: .resume(token: resumption[$0].token, handled: resumption[$0].handled)),
                       delegate: engine, handled: resumption[$0].handled)
        }
        try await loop.submit {
            engine.visitors = second
            engine.ready = 0
            engine.counting = true
        }.get()
        let server0 = context.serverSample()
        let start = nowNanos()
        let failedConnections = await connectCountingFailures(context, second)
        let upgraded = Double(nowNanos() - start) / 1e9
        var timedOut = false
        do {
            // A visitor whose connection failed cannot catch up: waiting for it would only add the timeout.
            let reachable = count - failedConnections
            try await context.wait("catch-up", timeout: 60, on: loop) { engine.caughtUpCount >= reachable && engine.ready >= reachable }
        } catch { timedOut = true }
        var result = try await loop.submit { () -> [String: Any] in
            let caughtUp = Double(engine.lastCaughtUp > start ? engine.lastCaughtUp - start : 0) / 1e9
            return ["connections": count, "missed_per_conversation": missed, "upgrade_seconds": upgraded,
                    "all_caught_up_seconds": caughtUp, "caught_up": engine.caughtUpCount, "resumed": engine.ready,
                    "lost": engine.lost, "duplicates": engine.duplicates, "gaps": 0, "strays": engine.strays, "errors": engine.errors,
                    "failed_connections": failedConnections]
        }.get()
        if let a = server0, let b = context.serverSample() {
            result["server_cpu_s"] = b.cpuSeconds - a.cpuSeconds
            result["server_rss_kb"] = b.rssKB
        }
        print(String(format: "storm of %d: all upgraded in %.2f s (%d connections failed), %d resumed, %d/%d caught up (%d missed messages each) in %.2f s; lost %d, duplicates %d, strays %d%@",
                     count, upgraded, failedConnections, result["resumed"] as! Int, result["caught_up"] as! Int, count, missed,
                     result["all_caught_up_seconds"] as! Double, result["lost"] as! Int, result["duplicates"] as! Int,
                     result["strays"] as! Int, timedOut ? " (TIMED OUT after 60 s)" : ""))
        if let errors = result["errors"] as? [String], !errors.isEmpty { print("errors: \(errors.prefix(3))") }
        try await loop.submit { for client in second + writers { client.socket.context?.close(promise: nil) } }.get()
        return result
    }

    /// Connects all at once; a connection that fails is counted, not fatal: under a storm the
    /// server's listen queue may overflow, and what happens then is part of the result.
    private static func connectCountingFailures(_ context: RunContext, _ clients: [XMPPClient]) async -> Int {
        let futures = clients.map {
            connectWebSocket(group: context.group, host: context.host, port: context.port, path: XMPP.path,
                             headers: XMPP.upgradeHeaders, socket: $0.socket)
        }
        var failed = 0
        for future in futures {
            do { try await future.get() } catch { failed += 1 }
        }
        return failed
    }

    private static func throwIfFailed(_ engine: XMPPStormEngine, loop: any EventLoop) async throws {
        let errors = try await loop.submit { engine.errors }.get()
        if !errors.isEmpty { throw LoadError("storm setup: \(errors.prefix(3))") }
    }
}
