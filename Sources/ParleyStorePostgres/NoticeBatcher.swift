import ParleyCore
import CoreMetrics
import Logging

/// Sends this node's notices to the other nodes after their commits, many to a NOTIFY.
///
/// A commit hands its notice line in and returns at once. One sender at a time takes everything
/// waiting, packs it into payloads of at most ``NodeNoticeWire/maxPayloadBytes`` (one notice a
/// line), and sends each with one `pg_notify` outside any transaction; what arrives meanwhile goes
/// into the next batch. So under load a NOTIFY (which serialises on a cluster-wide lock) is paid
/// once per batch, not once per message, and message transactions share WAL flushes again.
///
/// Lines go out in the order they were added. A payload that cannot be sent is retried a few
/// times, then dropped with a warning: the receivers' cursors fill a hole at the conversation's
/// next notice, and a node that dies with unsent lines is covered by ``NodeNotice/nodeLost``.
final class NoticeBatcher: Sendable {
    private struct State {
        var pending: [String] = []
        var isSending = false
        var drained: [CheckedContinuation<Void, Never>] = []
        var sentPayloads = 0
        var sentLines = 0
    }

    private let state = Locked(State())
    private let send: @Sendable (String) async throws -> Void
    private let logger: Logger
    private let linesSent: Counter?
    private let payloadsSent: Counter?

    /// - Parameters:
    ///   - metricsFactory: where to count notices (`parley_node_notices_sent_total`) and the
    ///     NOTIFYs carrying them (`parley_node_notice_payloads_total`); nil counts nothing.
    ///   - send: sends one payload (`SELECT pg_notify(channel, payload)`).
    init(logger: Logger, metricsFactory: (any MetricsFactory)? = nil, send: @escaping @Sendable (String) async throws -> Void) {
        self.send = send
        self.logger = logger
        linesSent = metricsFactory.map { Counter(label: "parley_node_notices_sent_total", dimensions: [], factory: $0) }
        payloadsSent = metricsFactory.map { Counter(label: "parley_node_notice_payloads_total", dimensions: [], factory: $0) }
    }

    /// Queues a notice line; never waits.
    func add(_ line: String) {
        let startSender = state.withLock { state in
            state.pending.append(line)
            if state.isSending { return false }
            state.isSending = true
            return true
        }
        if startSender { Task { await self.sendAll() } }
    }

    /// Returns once every line added before has been sent (or given up).
    func flush() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                if state.isSending {
                    state.drained.append(continuation)
                    return false
                }
                return true
            }
            if idle { continuation.resume() }
        }
    }

    /// Payloads and lines sent so far.
    var statistics: (payloads: Int, lines: Int) { state.withLock { ($0.sentPayloads, $0.sentLines) } }

    private func sendAll() async {
        while true {
            let (lines, drained): ([String], [CheckedContinuation<Void, Never>]) = state.withLock { state in
                let lines = state.pending
                state.pending = []
                guard lines.isEmpty else { return (lines, []) }
                state.isSending = false
                defer { state.drained = [] }
                return ([], state.drained)
            }
            if lines.isEmpty {
                for waiter in drained { waiter.resume() }
                return
            }
            for payload in Self.pack(lines) {
                await sendWithRetries(payload)
                state.withLock { $0.sentPayloads += 1 }
                payloadsSent?.increment()
            }
            state.withLock { $0.sentLines += lines.count }
            linesSent?.increment(by: lines.count)
        }
    }

    private func sendWithRetries(_ payload: String) async {
        var delay = Duration.milliseconds(20)
        for attempt in 1...4 {
            do {
                try await send(payload)
                return
            } catch {
                if attempt == 4 {
                    logger.warning("node notices not sent", metadata: ["error": "\(error)"])
                    return
                }
                try? await Task.sleep(for: delay)
                delay *= 4
            }
        }
    }

    /// Lines packed in order into payloads of at most ``NodeNoticeWire/maxPayloadBytes``, one a line.
    static func pack(_ lines: [String], limit: Int = NodeNoticeWire.maxPayloadBytes) -> [String] {
        var payloads: [String] = []
        var current = ""
        for line in lines {
            let size = line.utf8.count
            if !current.isEmpty, current.utf8.count + 1 + size > limit {
                payloads.append(current)
                current = ""
            }
            current += current.isEmpty ? line : "\n" + line
        }
        if !current.isEmpty { payloads.append(current) }
        return payloads
    }
}
