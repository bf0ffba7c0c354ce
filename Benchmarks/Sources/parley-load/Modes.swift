import Foundation
import NIOCore

/// Counts `ready` frames (parley), upgrades (floor) or finished XMPP logins (prosody) and closes;
/// holds connections doing nothing.
final class IdleEngine: SocketDelegate, XMPPClientDelegate, @unchecked Sendable {
    let target: Target
    var ready = 0
    var closed = 0
    var sockets: [Socket] = []
    var xmppClients: [XMPPClient] = []
    var errors: [String] = []
    init(target: Target) { self.target = target }
    func socketOpened(_ socket: Socket) { if target == .floor { ready += 1 } }
    func socketClosed(_ socket: Socket) { closed += 1 }
    func socket(_ socket: Socket, text: ByteBuffer) {
        text.withUnsafeReadableBytes { raw in
            if PairEngine.frameType(raw.bindMemory(to: UInt8.self)) == "ready" { ready += 1 }
        }
    }

    func xmppReady(_ client: XMPPClient) { ready += 1 }
    func xmppClosed(_ client: XMPPClient) { closed += 1 }
    func xmpp(_ client: XMPPClient, failed reason: String) { if errors.count < 10 { errors.append(reason) } }
    func xmppRegistered(_ client: XMPPClient) {}
    func xmpp(_ client: XMPPClient, stanza: StartTag) {}
    func xmpp(_ client: XMPPClient, handled: Int) {}
}

enum IdleFleet {
    /// Opens `count` idle visitor connections (distinct visitors), measures connect rate, then the
    /// server's RSS growth per connection after `hold` seconds.
    static func run(_ context: RunContext, count: Int, hold: Double, sourceIPs: Int) async throws -> [String: Any] {
        let loop = context.group.next()
        let engine = IdleEngine(target: context.target)
        var headers: [[(String, String)]] = Array(repeating: [], count: count)
        var path = "/ws"
        var sockets = (0..<count).map { Socket(index: $0, delegate: engine) }
        if context.target == .prosody {
            // One account per connection, as parleyd's idle visitors are distinct; made before the clock starts.
            path = XMPP.path
            headers = Array(repeating: XMPP.upgradeHeaders, count: count)
            let usernames = (0..<count).map { "idle\($0)" }
            let started = Date()
            try await context.registerXMPPAccounts(usernames)
            print(String(format: "registered %d XMPP accounts in %.1f s", count, Date().timeIntervalSince(started)))
            let clients = (0..<count).map {
                XMPPClient(index: $0, login: XMPPLogin(domain: context.xmppDomain, username: usernames[$0], goal: .login), delegate: engine)
            }
            try await loop.submit { engine.xmppClients = clients }.get()
            sockets = clients.map(\.socket)
        } else if context.target == .parley {
            path = "/v1/realtime"
            let api = context.api
            let app = try await BenchApp.create(api, adminToken: context.adminToken!)
            let started = Date()
            let visitors = try await app.createVisitors(api, count: count)
            print(String(format: "created %d visitor sessions in %.1f s", count, Date().timeIntervalSince(started)))
            headers = visitors.map { [("Authorization", "Bearer \($0.token)")] }
        }
        try await Task.sleep(for: .seconds(1))
        let before = context.serverSample()
        try await loop.submit { [sockets] in engine.sockets = sockets }.get()
        let started = Date()
        try await context.connectAll((0..<count).map {
            (sockets[$0], path, headers[$0], sourceIPs > 1 ? "127.0.0.\(1 + $0 % sourceIPs)" : nil)
        }, width: 256)
        try await context.wait("ready frames", timeout: 120, on: loop) { engine.ready == count || !engine.errors.isEmpty }
        let errors = try await loop.submit { engine.errors }.get()
        if !errors.isEmpty { throw LoadError("idle fleet: \(errors.prefix(3))") }
        let connectSeconds = Date().timeIntervalSince(started)
        let connectRate = Double(count) / connectSeconds
        print(String(format: "connected %d idle visitors in %.2f s (%.0f connections/s, each to its %@)", count, connectSeconds, connectRate,
                     context.target == .prosody ? "<enabled/> (login, bind, stream management)" : "ready frame"))
        try await Task.sleep(for: .seconds(hold))
        let after = context.serverSample()
        let stillOpen = try await loop.submit { count - engine.closed }.get()
        var result: [String: Any] = [
            "connections": count, "connect_seconds": connectSeconds, "connects_per_s": connectRate.rounded(),
            "hold_seconds": hold, "still_open": stillOpen,
        ]
        if let before, let after {
            let perConnection = Double(after.rssKB - before.rssKB) * 1024 / Double(count)
            result["server_rss_before_kb"] = before.rssKB
            result["server_rss_after_kb"] = after.rssKB
            result["server_bytes_per_connection"] = perConnection.rounded()
            result["server_cpu_s_connecting"] = after.cpuSeconds - before.cpuSeconds
            print(String(format: "server RSS %.1f MB → %.1f MB: %.1f KB per idle connection (%d still open after %.0f s)",
                         Double(before.rssKB) / 1024, Double(after.rssKB) / 1024, perConnection / 1024, stillOpen, hold))
        } else {
            print("(no --server-pid: no memory figure)")
        }
        try await loop.submit { for s in engine.sockets { s.context?.close(promise: nil) } }.get()
        try await Task.sleep(for: .milliseconds(500))
        return result
    }
}

/// Visitors that resubscribe from their cursor as soon as `ready` arrives, and check that the
/// replay holds exactly the events they missed.
final class StormEngine: SocketDelegate, @unchecked Sendable {
    var conversationIDs: [String] = []
    var cursor: [Int] = []          // highest seq held
    var expectedLast: [Int] = []    // the conversation's last seq after the writes while away
    var subscribedCount = 0
    var caughtUp: [Bool] = []
    var caughtUpCount = 0
    var lastCaughtUp: UInt64 = 0
    var duplicates = 0
    var gaps = 0
    var errors: [String] = []
    var closed = 0
    var resubscribe = false
    var epoch: String?

    func socketOpened(_ socket: Socket) {}
    func socketClosed(_ socket: Socket) { closed += 1 }

    func socket(_ socket: Socket, text: ByteBuffer) {
        let i = socket.index
        text.withUnsafeReadableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            switch PairEngine.frameType(bytes) {
            case "ready":
                if resubscribe { subscribe(socket) }
            case "event":
                guard let seq = Self.number(after: Self.seqKey, in: bytes) else { return }
                if seq <= cursor[i] { duplicates += 1; return }
                if seq != cursor[i] + 1 { gaps += 1 }
                cursor[i] = seq
                check(i)
            case "subscribed":
                subscribedCount += 1
                check(i)
            case "reset":
                errors.append("reset on \(conversationIDs[i])")
            case "error":
                if errors.count < 10 { errors.append(String(decoding: UnsafeRawBufferPointer(bytes), as: UTF8.self)) }
            default:
                break
            }
        }
    }

    func subscribe(_ socket: Socket) {
        guard let context = socket.context else { return }
        let i = socket.index
        var buffer = context.channel.allocator.buffer(capacity: 160)
        let epochPart = epoch.map { ",\"epoch\":\"\($0)\"" } ?? ""
        buffer.writeString("{\"after_seq\":\(cursor[i]),\"conversation_id\":\"\(conversationIDs[i])\"\(epochPart),\"type\":\"subscribe\"}")
        socket.write(buffer)
        socket.flushIfNeeded()
    }

    private func check(_ i: Int) {
        if resubscribe, !caughtUp[i], cursor[i] >= expectedLast[i] {
            caughtUp[i] = true
            caughtUpCount += 1
            lastCaughtUp = nowNanos()
        }
    }

    static let seqKey = Array(",\"seq\":".utf8)

    static func number(after key: [UInt8], in bytes: UnsafeBufferPointer<UInt8>) -> Int? {
        guard var i = PairEngine.find(key, in: bytes) else { return nil }
        i += key.count
        var value = 0
        var digits = 0
        while i < bytes.count, bytes[i] >= 48, bytes[i] <= 57 {
            value = value * 10 + Int(bytes[i] - 48)
            i += 1
            digits += 1
        }
        return digits > 0 ? value : nil
    }
}

enum Storm {
    /// K visitors, each subscribed to their own conversation, lose their connections at once; while
    /// they are away `missed` messages are written into each conversation; then all reconnect at once
    /// and resubscribe from their cursor. Measures the time until every one has every missed event.
    static func run(_ context: RunContext, count: Int, missed: Int) async throws -> [String: Any] {
        guard context.target == .parley else { throw LoadError("--storm needs --target parley") }
        let loop = context.group.next()
        let engine = StormEngine()
        let api = context.api
        let app = try await BenchApp.create(api, adminToken: context.adminToken!)
        let visitors = try await app.createVisitors(api, count: count)
        let opened: [String] = try await api.parallel(count, width: 16) { i in
            let conversation = try await api.call("POST", "/v1/conversations", token: visitors[i].token, body: ["queue_id": app.queueID])
            return conversation["id"] as? String ?? ""
        }
        try await loop.submit {
            engine.conversationIDs = opened
            engine.cursor = Array(repeating: 0, count: count)
            engine.expectedLast = Array(repeating: 0, count: count)
            engine.caughtUp = Array(repeating: false, count: count)
        }.get()
        let headers = visitors.map { [("Authorization", "Bearer \($0.token)")] }
        // First connection: subscribe from 0 and hold the history.
        let first = (0..<count).map { Socket(index: $0, delegate: engine) }
        try await context.connectAll((0..<count).map { (first[$0], "/v1/realtime", headers[$0], nil) }, width: 256)
        try await loop.submit { for s in first { engine.subscribe(s) } }.get()
        try await context.wait("first subscriptions", timeout: 120, on: loop) { engine.subscribedCount == count }
        print("\(count) visitors connected and subscribed")
        // Drop them all at once.
        try await loop.submit { for s in first { s.drop() } }.get()
        try await context.wait("the drop", on: loop) { engine.closed == count }
        // While they are away: missed messages, as if from the visitor's other device.
        let lasts: [Int] = try await api.parallel(count, width: 32) { i in
            var last = 0
            for m in 0..<missed {
                let answer = try await api.call("POST", "/v1/conversations/\(opened[i])/messages", token: visitors[i].token,
                                                body: ["client_message_id": "storm-\(i)-\(m)", "text": "while you were away \(m)"])
                last = (answer["event"] as? [String: Any])?["seq"] as? Int ?? last
            }
            return last
        }
        let server0 = context.serverSample()
        try await loop.submit {
            engine.expectedLast = lasts
            engine.subscribedCount = 0
            engine.resubscribe = true
        }.get()
        // The storm: everyone reconnects at once and resubscribes from their cursor on `ready`.
        let second = (0..<count).map { Socket(index: $0, delegate: engine) }
        let start = nowNanos()
        try await context.connectAll((0..<count).map { (second[$0], "/v1/realtime", headers[$0], nil) }, width: count)
        let connected = Double(nowNanos() - start) / 1e9
        var timedOut = false
        do {
            try await context.wait("catch-up", timeout: 60, on: loop) { engine.caughtUpCount == count && engine.subscribedCount == count }
        } catch { timedOut = true }
        let figures = try await loop.submit { () -> [String: Any] in
            let caughtUp = Double(engine.lastCaughtUp > start ? engine.lastCaughtUp - start : 0) / 1e9
            var lost = 0
            for i in 0..<count { lost += max(0, engine.expectedLast[i] - engine.cursor[i]) }
            return ["connections": count, "missed_per_conversation": missed, "upgrade_seconds": connected,
                    "all_caught_up_seconds": caughtUp, "caught_up": engine.caughtUpCount, "subscribed": engine.subscribedCount,
                    "lost": lost, "duplicates": engine.duplicates, "gaps": engine.gaps, "errors": engine.errors]
        }.get()
        var result = figures
        if let a = server0, let b = context.serverSample() {
            result["server_cpu_s"] = b.cpuSeconds - a.cpuSeconds
            result["server_rss_kb"] = b.rssKB
        }
        print(String(format: "storm of %d: all upgraded in %.2f s, %d/%d caught up (%d missed events each) in %.2f s; lost %d, duplicates %d, gaps %d%@",
                     count, connected, result["caught_up"] as! Int, count, missed, result["all_caught_up_seconds"] as! Double,
                     result["lost"] as! Int, result["duplicates"] as! Int, result["gaps"] as! Int, timedOut ? " (TIMED OUT after 60 s)" : ""))
        if let errors = result["errors"] as? [String], !errors.isEmpty { print("errors: \(errors.prefix(3))") }
        try await loop.submit { for s in second { s.context?.close(promise: nil) } }.get()
        return result
    }
}
