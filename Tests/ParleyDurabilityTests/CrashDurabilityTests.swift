import Foundation
import ParleyTestSupport
import ParleyCore
import Testing

/// Crash durability, end to end: parleyd as a child process, killed with SIGKILL while several
/// clients send, restarted on the same data directory. Every acknowledged message must be stored
/// exactly once, in the order its client sent it, in a gap-free sequence.
///
/// An acknowledgement is a 201 (stored now) or a 200 (`duplicate: true`, stored before) to
/// `POST /v1/conversations/{id}/messages`; the server answers only after the commit is fsync'd.
/// When a request fails in transport (the server died under it), the client does not know whether
/// the message was stored, so it resends the same `client_message_id` until the restarted server
/// acknowledges it: that resend must neither lose nor duplicate the message.
@Suite(.timeLimit(.minutes(2)))
struct CrashDurabilityTests {
    /// Concurrent clients, each with its own visitor and conversation.
    static let clients = 6
    /// SIGKILLs while the clients send (one more follows once they are done, before the final read).
    static let killRounds = 8
    /// How long after a healthy (re)start each kill comes, at random.
    static let killDelay = 150...600
    /// Each client sends at least this many messages, keeps sending until the last kill round is
    /// over (so every kill lands under load), then sends `tailMessages` more to the last server;
    /// never more than `maxMessages`.
    static let minMessages = 60
    static let tailMessages = 5
    static let maxMessages = 1_500
    /// After this, clients stop retrying and the test fails (the whole test stays under 90 s).
    static let sendBudget: Duration = .seconds(60)

    @Test func crash_sigkillDuringConcurrentSends_losesAndDuplicatesNothing() async throws {
        let clock = ContinuousClock()
        let began = clock.now
        let executable = try BuiltExecutable.locate("parleyd", overrideVariable: "PARLEYD_PATH")

        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-durability-\(UUID().uuidString)")
        let dataDirectory = root.appendingPathComponent("data")
        let logDirectory = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        let http = DurabilityHTTP(maxConnections: Self.clients * 2)
        let server = ParleydSupervisor(executable: executable, dataDirectory: dataDirectory, logDirectory: logDirectory, http: http)
        defer {
            server.killNow()
            if ProcessInfo.processInfo.environment["PARLEY_DURABILITY_KEEP"] == nil {
                try? FileManager.default.removeItem(at: root)
            } else {
                print("durability: kept \(root.path)")
            }
        }

        // First start: an empty data directory, so parleyd creates the demo app and prints its id.
        let first = try await server.start()
        let appText = try #require(first.appID, "the first start prints the demo app id")
        let appID = try #require(AppID(validating: appText), "app id \(appText)")

        // Each client: a visitor (its own device) and a conversation, opened before any kill.
        var plans: [ClientPlan] = []
        for index in 0..<Self.clients {
            let base = try #require(server.baseURL)
            let session: VisitorSession = try await http.json(
                "POST", base.appendingPathComponent("v1/visitor/session"),
                body: try ParleyJSON.encode(VisitorSessionRequest(appID: appID, deviceID: "durability-device-\(index)-\(UUID().uuidString)", name: "Client \(index)")))
            let conversation: Conversation = try await http.json(
                "POST", base.appendingPathComponent("v1/conversations"), token: session.token,
                body: try ParleyJSON.encode(OpenConversationRequest(subject: "durability \(index)")), expect: 201)
            plans.append(ClientPlan(index: index, token: session.token, conversationID: conversation.id))
        }

        // Send from every client while a killer SIGKILLs and restarts the server at random moments.
        let coordinator = Coordinator()
        let sendDeadline = clock.now + Self.sendBudget
        async let killing = Self.killer(server: server, coordinator: coordinator)
        let reports = await withTaskGroup(of: ClientReport.self) { group in
            for plan in plans {
                group.addTask {
                    await Self.client(plan, server: server, http: http, coordinator: coordinator, deadline: sendDeadline)
                }
            }
            var reports: [ClientReport] = []
            for await report in group { reports.append(report) }
            return reports.sorted { $0.plan.index < $1.plan.index }
        }
        let kills: [KillRecord]
        do {
            kills = try await killing
        } catch {
            Issue.record("the killer failed: \(error)\n\(server.stderrTail())")
            return
        }

        // One more SIGKILL with nothing in flight, then read everything back from a fresh process:
        // every acknowledged message has lived through at least one crash.
        try await server.kill()
        try await server.start()
        let base = try #require(server.baseURL)

        var tally = Tally()
        for report in reports {
            let (events, lastSeq) = try await Self.history(of: report.plan, base: base, http: http)
            tally.check(report, events: events, lastSeq: lastSeq)
        }
        let elapsed = clock.now - began

        for kill in kills {
            print("durability: kill \(kill.round) after \(kill.delayMS) ms, \(kill.inFlight) sends in flight, \(kill.ackedSinceRestart) acks since the previous restart, restarted in \(kill.restartMS) ms")
        }
        print("""
            durability: clients=\(Self.clients) kills=\(kills.count)+1 sent=\(tally.sent) acknowledged=\(tally.acknowledged) \
            lost=\(tally.lost) duplicated=\(tally.duplicated) outOfOrder=\(tally.outOfOrder) \
            resendsAckedAsDuplicate=\(tally.duplicateAcks) transportErrors=\(reports.map(\.transportErrors).reduce(0, +)) \
            serverErrors=\(reports.map(\.serverErrors).reduce(0, +)) unackedStored=\(tally.unackedStored) \
            duration=\(String(format: "%.1f", Self.seconds(elapsed)))s
            """)
        for problem in tally.problems.prefix(30) { print("durability: problem: \(problem)") }

        #expect(kills.count == Self.killRounds, "every kill round ran")
        #expect(kills.allSatisfy { $0.ackedSinceRestart > 0 }, "every kill lands while the clients send")
        #expect(tally.acknowledged == tally.sent, "every message a client sent was acknowledged in the end")
        #expect(tally.acknowledged >= Self.clients * Self.minMessages)
        #expect(tally.lost == 0, "acknowledged messages missing after a crash")
        #expect(tally.duplicated == 0, "messages stored more than once")
        #expect(tally.outOfOrder == 0, "messages stored out of their send order")
        #expect(tally.problems.isEmpty, "\(tally.problems.count) problems, first: \(tally.problems.first ?? "")")
        if !tally.problems.isEmpty || tally.lost > 0 || tally.duplicated > 0 { print(server.stderrTail()) }
        try await server.kill()  // reaped here; the deferred cleanup only covers early exits
    }

    /// The checker itself: it must see each kind of damage the crash test looks for.
    @Test func tally_countsLostDuplicatedReorderedAndGaps() {
        let id = ConversationID.generate()
        let author = Participant.system
        func event(_ seq: Int64, _ clientID: String?) -> ConversationEvent {
            let body: EventBody = clientID.map { .message(MessageBody(clientMessageID: $0, text: "text \($0)")) }
                ?? .stateChanged(StateChange(from: nil, to: .queued, reason: .opened))
            return ConversationEvent(conversationID: id, seq: seq, createdAt: Date(), author: author, body: body)
        }
        func sent(_ clientID: String, acked seq: Int64?) -> SentMessage {
            SentMessage(clientMessageID: clientID, text: "text \(clientID)", attempts: 1, ackedSeq: seq)
        }
        var report = ClientReport(plan: ClientPlan(index: 0, token: "t", conversationID: id))
        report.sent = [sent("m0", acked: 2), sent("m1", acked: 3), sent("m2", acked: 4), sent("m3", acked: 5), sent("m4", acked: nil)]

        var clean = Tally()
        clean.check(report, events: [event(1, nil), event(2, "m0"), event(3, "m1"), event(4, "m2"), event(5, "m3")], lastSeq: 5)
        #expect(clean.acknowledged == 4 && clean.sent == 5 && clean.lost == 0 && clean.duplicated == 0 && clean.outOfOrder == 0)
        #expect(clean.problems.isEmpty, "\(clean.problems)")

        // m1 lost, m0 stored twice, m3 before m2, and a gap at seq 4.
        var damaged = Tally()
        damaged.check(report, events: [event(1, nil), event(2, "m0"), event(3, "m0"), event(5, "m3"), event(6, "m2")], lastSeq: 6)
        #expect(damaged.lost == 1)
        #expect(damaged.duplicated == 1)
        #expect(damaged.outOfOrder == 1)
        #expect(damaged.problems.contains { $0.contains("without gaps: 1…3, 5…6") })
    }

    // MARK: - The killer

    /// `killRounds` times: wait a random 150–600 ms, SIGKILL, restart on the same data, wait for health.
    static func killer(server: ParleydSupervisor, coordinator: Coordinator) async throws -> [KillRecord] {
        defer { coordinator.finishKilling() }
        let clock = ContinuousClock()
        var records: [KillRecord] = []
        do {
            var ackedAtRestart = 0
            for round in 1...killRounds {
                let delay = Int.random(in: killDelay)
                try await Task.sleep(for: .milliseconds(delay))
                // On a slow machine (a sanitizer, a busy CI host) the restarted server may not have
                // answered anyone yet: wait for an ack, so every kill lands in the middle of traffic.
                let patience = clock.now + .seconds(30)
                while coordinator.snapshot.acknowledged == ackedAtRestart, clock.now < patience {
                    try await Task.sleep(for: .milliseconds(10))
                }
                let (inFlight, acked) = coordinator.snapshot
                try await server.kill()
                let killed = clock.now
                try await server.start()
                records.append(KillRecord(
                    round: round, delayMS: delay, inFlight: inFlight, ackedSinceRestart: acked - ackedAtRestart,
                    restartMS: Int(seconds(clock.now - killed) * 1_000)))
                ackedAtRestart = coordinator.snapshot.acknowledged
            }
        } catch {
            coordinator.abort()  // the clients must not wait for a server that will not come back
            throw error
        }
        return records
    }

    static func seconds(_ duration: Duration) -> Double {
        let (seconds, attoseconds) = duration.components
        return Double(seconds) + Double(attoseconds) / 1e18
    }

    // MARK: - A client

    /// Sends numbered messages in order; a message is retried (same client_message_id) until acknowledged.
    static func client(
        _ plan: ClientPlan, server: ParleydSupervisor, http: DurabilityHTTP, coordinator: Coordinator, deadline: ContinuousClock.Instant
    ) async -> ClientReport {
        var report = ClientReport(plan: plan)
        let clock = ContinuousClock()
        var tailStart: Int?
        var number = 0
        while number < maxMessages, !coordinator.isAborted {
            if number >= minMessages, coordinator.killingIsOver {
                tailStart = tailStart ?? number
                if let tailStart, number - tailStart >= tailMessages { break }
            }
            let message = SendMessageRequest(clientMessageID: "c\(plan.index)-m\(number)", text: "client \(plan.index) message \(number)")
            let body: Data
            do { body = try ParleyJSON.encode(message) } catch {
                report.problems.append("cannot encode \(message.clientMessageID): \(error)")
                return report
            }
            var sent = SentMessage(clientMessageID: message.clientMessageID, text: message.text)
            report.sent.append(sent)
            while true {
                guard clock.now < deadline else {
                    report.problems.append("\(message.clientMessageID) still unacknowledged after \(sendBudget) (\(sent.attempts) attempts)")
                    return report
                }
                if coordinator.isAborted { return report }
                guard let base = server.baseURL else {
                    try? await Task.sleep(for: .milliseconds(10))
                    continue
                }
                let url = base.appendingPathComponent("v1/conversations/\(plan.conversationID.rawValue)/messages")
                sent.attempts += 1
                coordinator.beginSend()
                let result: Result<(Int, Data), any Error>
                do { result = .success(try await http.request("POST", url, token: plan.token, body: body)) } catch { result = .failure(error) }
                coordinator.endSend()

                guard case .success(let (status, data)) = result else {
                    // The server died under the request (or is not up yet): stored or not, resend the same message.
                    report.transportErrors += 1
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 10...30)))
                    continue
                }
                if status >= 500 {
                    report.serverErrors += 1
                    try? await Task.sleep(for: .milliseconds(Int.random(in: 10...30)))
                    continue
                }
                guard status == 201 || status == 200 else {
                    report.problems.append("\(message.clientMessageID): HTTP \(status) \(String(decoding: data, as: UTF8.self))")
                    report.sent[report.sent.count - 1] = sent
                    return report
                }
                do {
                    let answer = try ParleyJSON.decode(SendMessageResponse.self, from: data)
                    if answer.duplicate != (status == 200) {
                        report.problems.append("\(message.clientMessageID): HTTP \(status) with duplicate=\(answer.duplicate)")
                    }
                    if answer.duplicate && sent.attempts == 1 {
                        report.problems.append("\(message.clientMessageID): a first send was answered as a duplicate")
                    }
                    if answer.event.message != MessageBody(clientMessageID: message.clientMessageID, text: message.text) {
                        report.problems.append("\(message.clientMessageID): acknowledged with another event: \(answer.event)")
                    }
                    sent.ackedSeq = answer.event.seq
                    sent.ackedAsDuplicate = answer.duplicate
                } catch {
                    report.problems.append("\(message.clientMessageID): undecodable \(status) answer: \(error)")
                    report.sent[report.sent.count - 1] = sent
                    return report
                }
                coordinator.acknowledged()
                break
            }
            report.sent[report.sent.count - 1] = sent
            number += 1
        }
        return report
    }

    // MARK: - Reading back

    /// Every event of the conversation, paged with `after`, and the conversation's last seq.
    static func history(of plan: ClientPlan, base: URL, http: DurabilityHTTP) async throws -> ([ConversationEvent], Int64) {
        var events: [ConversationEvent] = []
        var after: Int64 = 0
        var lastSeq: Int64 = 0
        while true {
            var components = try #require(URLComponents(
                url: base.appendingPathComponent("v1/conversations/\(plan.conversationID.rawValue)/events"), resolvingAgainstBaseURL: false))
            components.queryItems = [URLQueryItem(name: "after", value: "\(after)"), URLQueryItem(name: "limit", value: "\(Limits.maxEventPage)")]
            let page: EventPage = try await http.json("GET", try #require(components.url), token: plan.token)
            events += page.events
            lastSeq = page.lastSeq
            guard page.hasMore, let last = page.events.last else { break }
            after = last.seq
        }
        return (events, lastSeq)
    }
}

// MARK: - Bookkeeping

struct ClientPlan: Sendable {
    var index: Int
    var token: String
    var conversationID: ConversationID
}

struct SentMessage: Sendable {
    var clientMessageID: String
    var text: String
    var attempts = 0
    /// The seq the acknowledgement named; nil when never acknowledged.
    var ackedSeq: Int64?
    var ackedAsDuplicate = false
}

struct ClientReport: Sendable {
    var plan: ClientPlan
    /// In send order.
    var sent: [SentMessage] = []
    var transportErrors = 0
    var serverErrors = 0
    var problems: [String] = []
}

struct KillRecord: Sendable {
    var round: Int
    var delayMS: Int
    /// Sends in flight when the signal went out.
    var inFlight: Int
    /// Acknowledgements the clients received between the previous restart and this kill.
    var ackedSinceRestart: Int
    var restartMS: Int
}

/// What the clients and the killer share.
final class Coordinator: Sendable {
    private struct State {
        var inFlight = 0
        var acknowledged = 0
        var killingIsOver = false
        var aborted = false
    }

    private let state = Locked(State())

    func beginSend() { state.withLock { $0.inFlight += 1 } }
    func endSend() { state.withLock { $0.inFlight -= 1 } }
    func acknowledged() { state.withLock { $0.acknowledged += 1 } }
    var snapshot: (inFlight: Int, acknowledged: Int) { state.withLock { ($0.inFlight, $0.acknowledged) } }

    /// The last kill round is over and the server is healthy again, or the killer failed.
    var killingIsOver: Bool { state.withLock { $0.killingIsOver } }
    func finishKilling() { state.withLock { $0.killingIsOver = true } }

    var isAborted: Bool { state.withLock { $0.aborted } }
    func abort() { state.withLock { $0.aborted = true } }
}

/// Compares what the clients were told with what the server has after the crashes.
struct Tally {
    var sent = 0
    var acknowledged = 0
    /// Acknowledged, but not stored.
    var lost = 0
    /// Extra copies of a client_message_id beyond the first.
    var duplicated = 0
    /// Acknowledged messages whose stored seq is not above the one sent before them.
    var outOfOrder = 0
    /// Resends the server answered with `duplicate: true` (the first try was stored, its answer lost).
    var duplicateAcks = 0
    /// Stored although never acknowledged (possible only for a message given up at the deadline).
    var unackedStored = 0
    var problems: [String] = []

    mutating func check(_ report: ClientReport, events: [ConversationEvent], lastSeq: Int64) {
        let client = "client \(report.plan.index) (\(report.plan.conversationID.rawValue))"
        problems += report.problems.map { "\(client): \($0)" }

        // The conversation's seqs are exactly 1…last_seq: no gap, no repeat.
        let seqs = events.map(\.seq)
        if seqs != Array(stride(from: Int64(1), through: lastSeq, by: 1)) {
            problems.append("\(client): seqs are not 1…\(lastSeq) without gaps: \(Self.describe(seqs))")
        }

        var stored: [String: [ConversationEvent]] = [:]
        for event in events {
            guard let message = event.message else { continue }
            stored[message.clientMessageID, default: []].append(event)
        }
        let sentIDs = Set(report.sent.map(\.clientMessageID))
        for (id, copies) in stored {
            if copies.count > 1 {
                duplicated += copies.count - 1
                problems.append("\(client): \(id) stored \(copies.count) times, seqs \(copies.map(\.seq))")
            }
            if !sentIDs.contains(id) { problems.append("\(client): \(id) stored but never sent") }
        }

        var previousSeq: Int64 = 0
        for message in report.sent {
            sent += 1
            let copies = stored[message.clientMessageID] ?? []
            guard let ackedSeq = message.ackedSeq else {
                if !copies.isEmpty { unackedStored += 1 }
                continue
            }
            acknowledged += 1
            if message.ackedAsDuplicate { duplicateAcks += 1 }
            guard let first = copies.first else {
                lost += 1
                problems.append("\(client): \(message.clientMessageID) acknowledged with seq \(ackedSeq) but not stored")
                continue
            }
            if first.seq != ackedSeq {
                problems.append("\(client): \(message.clientMessageID) acknowledged with seq \(ackedSeq) but stored at \(first.seq)")
            }
            if first.message?.text != message.text {
                problems.append("\(client): \(message.clientMessageID) stored with another text: \(first.message?.text ?? "nil")")
            }
            if first.seq <= previousSeq {
                outOfOrder += 1
                problems.append("\(client): \(message.clientMessageID) at seq \(first.seq), not after its predecessor's \(previousSeq)")
            }
            previousSeq = first.seq
        }
    }

    /// Seqs as ranges, e.g. `1…40, 42…90`.
    static func describe(_ seqs: [Int64]) -> String {
        var ranges: [String] = []
        var start: Int64?
        var previous: Int64?
        for seq in seqs + [-1] {
            if let p = previous, seq == p + 1 { previous = seq; continue }
            if let s = start, let p = previous { ranges.append(s == p ? "\(s)" : "\(s)…\(p)") }
            start = seq
            previous = seq
        }
        return ranges.joined(separator: ", ")
    }
}
