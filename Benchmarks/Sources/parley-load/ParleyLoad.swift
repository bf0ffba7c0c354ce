import ArgumentParser
import Foundation
import NIOCore
import NIOPosix

/// parley-load: drives parleyd (or the Go relay floor, or Prosody or ejabberd) over WebSocket and prints what it measured.
@main
struct ParleyLoad: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parley-load",
        abstract: "Load generator for parleyd's /v1/realtime (and, side by side, the Go WebSocket relay floor, Prosody and ejabberd).",
        discussion: """
            Pairs (default): N visitor/agent pairs; each pair exchanges messages both ways, open loop at
            --rate messages/s in all (latency from the intended send time), or flat out with --rate 0.
              parley-load --admin-token T --pairs 100 --rate 2000 --duration 10 --server-pid PID
              parley-load --admin-token T --pairs 100 --step --server-pid PID
              parley-load --admin-token T --url http://127.0.0.1:18181 --agent-url http://127.0.0.1:18182 \
                --server-pid PID1 --server-pid PID2
                (two nodes on one PostgreSQL: visitors on one, agents on the other; CPU and RSS summed)
              parley-load --target floor --url http://127.0.0.1:9001 --pairs 100 --rate 2000
              parley-load --target prosody --url http://127.0.0.1:18282 --pairs 100 --rate 2000
                (XMPP over WebSocket; accounts made by in-band registration; acked = XEP-0198 <a/>)
              parley-load --target ejabberd --url http://127.0.0.1:18283 --pairs 100 --rate 2000
                (the same XMPP client and workload against ejabberd, scripts/bench/ejabberd.sh)
            Idle fleet:      parley-load --admin-token T --idle 10000 --server-pid PID
            Reconnect storm: parley-load --admin-token T --storm 2000
                             parley-load --target prosody --url … --storm 2000   (XEP-0198 resumption;
                             --target ejabberd likewise)
            Smoke (CI):      parley-load --admin-token T --smoke   (exit 1 only if messages are lost,
                             duplicated, or none is delivered; never on timing)
            """)

    @Option(help: "parley, floor (the Go relay of /work/shared/bench, /room endpoint), prosody or ejabberd (XMPP over WebSocket, scripts/bench/prosody.sh and ejabberd.sh).")
    var target: String = "parley"

    @Option(name: .customLong("xmpp-domain"), help: "Prosody and ejabberd: the virtual host the accounts live on.")
    var xmppDomain: String = "bench.local"

    @Option(help: "The server's base URL (visitors, and the admin calls that set a run up).")
    var url: String = "http://127.0.0.1:8080"

    @Option(name: .customLong("agent-url"), help: "The agents' node: their login, availability and realtime socket (default: --url). Another node on the same PostgreSQL makes every message cross nodes.")
    var agentURL: String?

    @Option(name: .customLong("admin-token"), help: "parleyd's operator token (--admin-token), to create a fresh app, queue and agents.")
    var adminToken: String?

    @Option(help: "Visitor/agent pairs.")
    var pairs: Int = 100

    @Option(help: "Messages per second in all, open loop; 0 = flat out (closed loop, --inflight per sender).")
    var rate: Double = 1000

    @Option(help: "Flat out: messages in flight per sender.")
    var inflight: Int = 1

    @Option(help: "Measured seconds (after the warm-up).")
    var duration: Double = 10

    @Option(help: "Warm-up seconds (sent, checked for loss, not measured).")
    var warmup: Double = 2

    @Option(help: "Seconds to wait after sending stops for the last deliveries and acks.")
    var drain: Double = 5

    @Option(help: "Message text bytes.")
    var size: Int = 64

    @Option(name: .customLong("server-pid"), help: "The server's pid, for CPU and RSS from /proc; repeat it (or give a comma list) for several nodes: their figures are summed.",
            transform: ServerPIDs.parse)
    var serverPIDs: [[Int32]] = []

    @Option(help: "Write a JSON record of the run here.")
    var json: String?

    @Flag(help: "Raise the rate step by step until p99 passes --knee-ms or a message is lost; report the knee.")
    var step = false
    @Option(name: .customLong("step-start"), help: "Step mode: first rate (msg/s).")
    var stepStart: Double = 500
    @Option(name: .customLong("step-factor"), help: "Step mode: each rate is the last times this.")
    var stepFactor: Double = 1.5
    @Option(name: .customLong("step-max"), help: "Step mode: highest rate tried.")
    var stepMax: Double = 200_000
    @Option(name: .customLong("knee-ms"), help: "Step mode: the p99 (ms) that ends the climb.")
    var kneeMs: Double = 100

    @Option(help: "Idle fleet: hold this many idle visitor connections; report memory per connection and connect rate.")
    var idle: Int?
    @Option(help: "Idle fleet: seconds to hold the connections before measuring memory.")
    var hold: Double = 5
    @Option(name: .customLong("source-ips"), help: "Spread connections over 127.0.0.1 … 127.0.0.N (past ~28k per address).")
    var sourceIPs: Int = 1

    @Option(help: "Reconnect storm: K visitors, subscribed; drop all at once, write while they are away, time until all resumed and caught up.")
    var storm: Int?
    @Option(name: .customLong("storm-missed"), help: "Reconnect storm: messages written into each conversation while its visitor is away.")
    var stormMissed: Int = 2

    @Flag(help: "CI smoke: 2 pairs, 2 s; fails only on lost or duplicated messages, or none delivered.")
    var smoke = false

    @Flag(help: "No progress lines.")
    var quiet = false

    mutating func run() async throws {
        setvbuf(stdout, nil, _IOLBF, 0)
        let targetName = target
        guard let target = Self.protocolTarget(targetName) else { throw ValidationError("--target is parley, floor, prosody or ejabberd") }
        guard let base = URL(string: url), let host = base.host else { throw ValidationError("bad --url") }
        let port = base.port ?? 80
        guard let agentBase = URL(string: agentURL ?? url), let agentHost = agentBase.host else { throw ValidationError("bad --agent-url") }
        if agentURL != nil && target != .parley { throw ValidationError("--agent-url is for --target parley") }
        if target == .parley && adminToken == nil { throw ValidationError("--admin-token is needed for parley (start parleyd with --admin-token)") }
        if smoke {
            pairs = 2; rate = 200; duration = 2; warmup = 0.5; step = false
            drain = max(drain, 30)   // a slow CI machine must not turn late into lost
        }
        let group = MultiThreadedEventLoopGroup(numberOfThreads: 1)
        let context = RunContext(group: group, target: target, host: host, port: port, base: base,
                                 agentEndpoint: Endpoint(host: agentHost, port: agentBase.port ?? 80, base: agentBase),
                                 adminToken: adminToken, serverPIDs: serverPIDs.flatMap { $0 }, quiet: quiet, xmppDomain: xmppDomain)
        var record: [String: Any] = [
            "tool": "parley-load", "target": targetName, "url": url, "agent_url": agentURL ?? url,
            "server_pids": context.serverPIDs.map(Int.init),
            "started_at": ISO8601DateFormatter().string(from: Date()),
        ]
        var failed = false

        if let count = idle {
            let result = try await IdleFleet.run(context, count: count, hold: hold, sourceIPs: sourceIPs)
            record["idle"] = result
        } else if let count = storm {
            let result = target == .prosody
                ? try await XMPPStorm.run(context, count: count, missed: stormMissed)
                : try await Storm.run(context, count: count, missed: stormMissed)
            record["storm"] = result
            failed = (result["lost"] as? Int ?? 0) > 0 || (result["duplicates"] as? Int ?? 0) > 0
        } else {
            let engine = PairEngine(loop: group.next(), target: target, pairs: pairs, size: size)
            let setupStart = Date()
            try await context.setUpPairs(engine)
            print(String(format: "set up %d pairs in %.1f s", pairs, Date().timeIntervalSince(setupStart)))
            record["pairs"] = pairs
            record["size"] = size
            var phases: [[String: Any]] = []
            if step {
                var current = stepStart
                var knee: PhaseResult?
                var breaking: PhaseResult?
                while current <= stepMax {
                    let result = try await context.phase(engine, rate: current, inflight: inflight, warmup: 1, duration: duration, drain: drain,
                                                         label: String(format: "step %.0f/s", current))
                    phases.append(result.json)
                    let broke = result.p99 > kneeMs || result.lost > 0 || result.duplicates > 0
                        || result.deliveredRate < 0.9 * current
                    if broke { breaking = result; break }
                    knee = result
                    current *= stepFactor
                }
                if let knee {
                    print(String(format: "knee: %.0f msg/s offered, %.0f delivered/s, p99 %.2f ms (next step: %@)",
                                 knee.targetRate, knee.deliveredRate, knee.p99,
                                 breaking.map { String(format: "%.0f/s gave p99 %.1f ms, %.0f delivered/s, lost %d", $0.targetRate, $0.p99, $0.deliveredRate, $0.lost) } ?? "none broke"))
                    record["knee"] = knee.json
                } else {
                    print("knee: below the first step")
                }
                failed = phases.contains { ($0["duplicates"] as? Int ?? 0) > 0 }
            } else {
                let result = try await context.phase(engine, rate: rate, inflight: inflight, warmup: warmup, duration: duration, drain: drain,
                                                     label: rate > 0 ? String(format: "rate %.0f/s", rate) : "flat out")
                phases.append(result.json)
                failed = result.lost > 0 || result.duplicates > 0 || result.delivered == 0
            }
            record["phases"] = phases
            let errors = try await engine.loop.submit { engine.firstErrors }.get()
            if !errors.isEmpty {
                print("first errors:")
                for e in errors { print("  \(e.prefix(300))") }
            }
            record["first_errors"] = errors
            try await context.close(engine)
        }
        if let path = json {
            let data = try JSONSerialization.data(withJSONObject: record, options: [.prettyPrinted, .sortedKeys])
            try data.write(to: URL(fileURLWithPath: path))
            print("wrote \(path)")
        }
        if smoke {
            print(failed ? "SMOKE FAILED: messages lost, duplicated, or none delivered" : "smoke ok")
        }
        if failed && (smoke || storm != nil) { throw ExitCode(1) }
    }

    /// What the generator speaks for `--target name`. Both XMPP servers get the one XMPP client
    /// and workload, `Target.prosody` (XMPP over WebSocket, RFC 7395): ejabberd 23.01 offers what
    /// that client uses — in-band registration before login, SASL PLAIN (with every other
    /// mechanism it offers), resource binding with session establishment optional, XEP-0198 acks
    /// and resumption — so nothing differs but the name kept in the JSON record.
    static func protocolTarget(_ name: String) -> Target? {
        name == "ejabberd" ? .prosody : Target(rawValue: name)
    }
}

/// Where a node listens.
struct Endpoint: Sendable {
    let host: String
    let port: Int
    let base: URL
}

/// `--server-pid`: one pid or a comma list, the option repeated for several nodes.
enum ServerPIDs {
    static func parse(_ text: String) throws -> [Int32] {
        try text.split(separator: ",").map { part in
            guard let pid = Int32(part.trimmingCharacters(in: .whitespaces)), pid > 0 else { throw ValidationError("bad --server-pid \(text)") }
            return pid
        }
    }
}

/// What every mode needs: where the server is, how to reach it, the event loop.
struct RunContext: @unchecked Sendable {
    let group: MultiThreadedEventLoopGroup
    let target: Target
    let host: String
    let port: Int
    let base: URL
    /// The agents' node (the same as host/port/base unless --agent-url).
    let agentEndpoint: Endpoint
    let adminToken: String?
    /// Every node's pid; CPU and RSS are summed over them.
    let serverPIDs: [Int32]
    let quiet: Bool
    let xmppDomain: String

    var api: ParleyAPI { ParleyAPI(base: base) }
    var agentAPI: ParleyAPI { agentEndpoint.base == base ? api : ParleyAPI(base: agentEndpoint.base) }

    /// The servers' CPU and RSS summed over `serverPIDs`; nil without pids or if one has gone.
    func serverSample() -> ProcSample? { ProcSample.read(pids: serverPIDs) }

    /// Connects each socket with at most `width` handshakes at once, to `endpoint` (default: --url).
    func connectAll(_ items: [(socket: Socket, path: String, headers: [(String, String)], local: String?)], width: Int = 64,
                    to endpoint: Endpoint? = nil) async throws {
        let host = endpoint?.host ?? self.host
        let port = endpoint?.port ?? self.port
        var index = 0
        while index < items.count {
            let batch = items[index..<min(index + width, items.count)]
            let futures = batch.map { item in
                connectWebSocket(group: group, host: host, port: port, path: item.path, headers: item.headers, localAddress: item.local, socket: item.socket)
            }
            for future in futures { try await future.get() }
            index += width
        }
    }

    /// Waits until `condition` (read on the loop) holds, or fails after `timeout` seconds.
    func wait(_ what: String, timeout: Double = 60, on loop: any EventLoop, _ condition: @escaping () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(timeout)
        while true {
            if try await loop.submit(condition).get() { return }
            if Date() > deadline { throw LoadError("timed out waiting for \(what)") }
            try await Task.sleep(for: .milliseconds(20))
        }
    }

    func setUpPairs(_ engine: PairEngine) async throws {
        let loop = engine.loop
        let pairs = engine.pairs
        if target == .prosody {
            try await setUpXMPPPairs(engine)
            return
        }
        if target == .floor {
            let run = String(UInt32.random(in: 0...UInt32.max), radix: 36)
            var items: [(socket: Socket, path: String, headers: [(String, String)], local: String?)] = []
            for i in 0..<(2 * pairs) {
                let socket = Socket(index: i, delegate: engine)
                engine.sockets[i] = socket
                items.append((socket, "/room?id=\(run)-\(i / 2)", [], nil))
            }
            try await connectAll(items)
            try await wait("floor sockets", on: loop) { engine.readyCount == 2 * pairs }
            try await Task.sleep(for: .milliseconds(300))   // the relay joins a room just after the upgrade
            return
        }
        let api = self.api
        let agentAPI = self.agentAPI
        let token = adminToken!
        let app = try await BenchApp.create(api, adminToken: token)
        let agents = try await app.createAgents(api, adminToken: token, count: pairs, loginAPI: agentAPI)
        // Agents connect (to --agent-url), then go online: routing needs both.
        let agentSockets = (0..<pairs).map { Socket(index: -1 - $0, delegate: engine) }
        try await connectAll((0..<pairs).map { (agentSockets[$0], "/v1/realtime", [("Authorization", "Bearer \(agents[$0].token)")], nil) },
                             to: agentEndpoint)
        try await wait("agent ready", on: loop) { engine.readyCount == pairs }
        _ = try await agentAPI.parallel(pairs, width: 16) { i in
            try await agentAPI.call("PUT", "/v1/agent/availability", token: agents[i].token, body: ["availability": "online"])
        }
        let visitors = try await app.createVisitors(api, count: pairs)
        let opened: [(String, String)] = try await api.parallel(pairs, width: 16) { i in
            var conversation = try await api.call("POST", "/v1/conversations", token: visitors[i].token, body: ["queue_id": app.queueID])
            let id = conversation["id"] as? String ?? ""
            var tries = 0
            while conversation["state"] as? String != "assigned" {
                tries += 1
                if tries > 100 { throw LoadError("conversation \(id) was not assigned: \(conversation)") }
                try await Task.sleep(for: .milliseconds(50))
                conversation = try await api.call("GET", "/v1/conversations/\(id)", token: visitors[i].token)
            }
            return (id, conversation["agent_id"] as? String ?? "")
        }
        var agentIndex: [String: Int] = [:]
        for (i, agent) in agents.enumerated() { agentIndex[agent.id] = i }
        var used = Set<Int>()
        var mapping: [Int] = []
        for (_, agentID) in opened {
            guard let a = agentIndex[agentID], used.insert(a).inserted else { throw LoadError("routing gave agent \(agentID) twice or unknown") }
            mapping.append(a)
        }
        let visitorSockets = (0..<pairs).map { Socket(index: 2 * $0, delegate: engine) }
        try await loop.submit {
            for p in 0..<pairs {
                engine.conversationIDs[p] = opened[p].0
                let socket = agentSockets[mapping[p]]
                socket.index = 2 * p + 1
                engine.sockets[2 * p + 1] = socket
                engine.sockets[2 * p] = visitorSockets[p]
            }
        }.get()
        try await connectAll((0..<pairs).map { (visitorSockets[$0], "/v1/realtime", [("Authorization", "Bearer \(visitors[$0].token)")], nil) })
        do {
            try await wait("visitor ready", on: loop) { engine.readyCount == 2 * pairs }
        } catch {
            let state = try await loop.submit { (engine.readyCount, engine.closedCount, engine.firstErrors) }.get()
            throw LoadError("\(error): \(state.0) of \(2 * pairs) ready, \(state.1) closed, errors \(state.2)")
        }
        try await loop.submit {
            for i in 0..<(2 * pairs) {
                guard let socket = engine.sockets[i], let context = socket.context else { continue }
                var buffer = context.channel.allocator.buffer(capacity: 100)
                buffer.writeString("{\"after_seq\":0,\"conversation_id\":\"\(engine.conversationIDs[i / 2])\",\"type\":\"subscribe\"}")
                socket.write(buffer)
                socket.flushIfNeeded()
            }
        }.get()
        try await wait("subscribed", on: loop) { engine.subscribedCount == 2 * pairs }
    }

    func close(_ engine: PairEngine) async throws {
        try await engine.loop.submit {
            for socket in engine.sockets { socket?.context?.close(promise: nil) }
        }.get()
    }

    /// One measured phase: warm-up, measured window with a progress line a second, drain, figures.
    func phase(_ engine: PairEngine, rate: Double, inflight: Int, warmup: Double, duration: Double, drain: Double, label: String) async throws -> PhaseResult {
        let loop = engine.loop
        let base = try await loop.submit { (engine.totalSent, engine.totalUnique, engine.totalDuplicates, engine.totalOutOfOrder, engine.totalErrors, engine.totalAcked, engine.outstanding) }.get()
        try await loop.submit { _ = engine.takeSecond(); engine.start(rate: rate, inflight: inflight, warmup: warmup, duration: duration) }.get()
        let started = Date()
        let me = getpid()
        func progress(until end: Date) async throws {
            while Date() < end {
                let wake = min(end, Date().addingTimeInterval(1))
                try await Task.sleep(for: .seconds(max(0, wake.timeIntervalSinceNow)))
                let s = try await loop.submit { engine.takeSecond() }.get()
                if !quiet {
                    var line = String(format: "  %5.1fs sent %6d acked %6d delivered %6d  p99 %7.2f ms", Date().timeIntervalSince(started), s.sent, s.acked, s.delivered, s.p99)
                    if let sample = serverSample() {
                        line += String(format: "  server cpu %.1fs rss %.1f MB", sample.cpuSeconds, Double(sample.rssKB) / 1024)
                    }
                    print(line)
                }
            }
        }
        try await progress(until: started.addingTimeInterval(warmup))
        let server0 = serverSample()
        let self0 = ProcSample.read(pid: me)
        try await progress(until: started.addingTimeInterval(warmup + duration))
        let server1 = serverSample()
        let self1 = ProcSample.read(pid: me)
        try await loop.submit { engine.stop() }.get()
        let drainEnd = Date().addingTimeInterval(drain)
        while Date() < drainEnd {
            if try await loop.submit({ engine.outstanding <= base.6 }).get() { break }
            try await Task.sleep(for: .milliseconds(20))
        }
        var result = try await loop.submit { () -> PhaseResult in
            var r = PhaseResult(targetRate: rate, seconds: duration)
            r.sent = engine.windowSent
            r.acked = engine.target.acknowledges ? engine.windowAcked : 0
            r.delivered = engine.windowDelivered
            let h = engine.histogram
            r.latencySamples = Int(h.totalCount)
            r.p50 = Double(h.valueAtPercentile(50)) / 1000
            r.p90 = Double(h.valueAtPercentile(90)) / 1000
            r.p99 = Double(h.valueAtPercentile(99)) / 1000
            r.p999 = Double(h.valueAtPercentile(99.9)) / 1000
            r.max = Double(h.max) / 1000
            r.mean = h.mean / 1000
            let sent = engine.totalSent - base.0
            let unique = engine.totalUnique - base.1
            r.lost = sent - unique
            r.duplicates = engine.totalDuplicates - base.2
            r.outOfOrder = engine.totalOutOfOrder - base.3
            r.errors = engine.totalErrors - base.4
            if engine.target.acknowledges { r.errors += max(0, sent - (engine.totalAcked - base.5)) }   // never acked
            return r
        }.get()
        if let a = server0, let b = server1 {
            result.serverCPUSeconds = b.cpuSeconds - a.cpuSeconds
            result.serverRSSKB = b.rssKB
            if b.each.count > 1 { result.serverCPUSecondsEach = zip(a.each, b.each).map { $1 - $0 } }
        }
        if let a = self0, let b = self1 { result.generatorCPUSeconds = b.cpuSeconds - a.cpuSeconds }
        print(result.line(label))
        return result
    }
}
