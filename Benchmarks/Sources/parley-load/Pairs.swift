import Foundation
import Histogram
import NIOCore
import NIOPosix

enum Target: String, Sendable {
    /// parleyd's /v1/realtime.
    case parley
    /// The Go relay of /work/shared/bench: no storage, no acks.
    case floor
    /// Prosody 0.12, XMPP over WebSocket (XMPP.swift).
    case prosody

    /// Whether the server acknowledges each message (parleyd's `ack`; XEP-0198 `<a/>` for Prosody).
    var acknowledges: Bool { self != .floor }
}

/// Monotonic nanoseconds (the one clock every latency uses).
@inline(__always) func nowNanos() -> UInt64 { NIODeadline.now().uptimeNanoseconds }

/// The figures of one measured phase.
struct PhaseResult {
    var targetRate: Double          // msg/s asked for; 0 = flat out
    var seconds: Double
    var sent = 0, acked = 0, delivered = 0
    var p50 = 0.0, p90 = 0.0, p99 = 0.0, p999 = 0.0, max = 0.0, mean = 0.0   // ms
    var latencySamples = 0
    var lost = 0, duplicates = 0, outOfOrder = 0, errors = 0
    var serverCPUSeconds: Double?       // summed over the nodes
    var serverCPUSecondsEach: [Double]? // per node, with several --server-pid
    var serverRSSKB: Int?
    var generatorCPUSeconds = 0.0

    var sentRate: Double { Double(sent) / seconds }
    var ackedRate: Double { Double(acked) / seconds }
    var deliveredRate: Double { Double(delivered) / seconds }
    var serverMicrosPerMessage: Double? {
        guard let cpu = serverCPUSeconds, delivered > 0 else { return nil }
        return cpu * 1e6 / Double(delivered)
    }

    var json: [String: Any] {
        var out: [String: Any] = [
            "target_rate": targetRate, "seconds": seconds,
            "sent": sent, "acked": acked, "delivered": delivered,
            "sent_per_s": sentRate.rounded(), "acked_per_s": ackedRate.rounded(), "delivered_per_s": deliveredRate.rounded(),
            "latency_ms": ["p50": p50, "p90": p90, "p99": p99, "p99_9": p999, "max": max, "mean": mean, "samples": latencySamples],
            "lost": lost, "duplicates": duplicates, "out_of_order": outOfOrder, "errors": errors,
            "generator_cpu_s": generatorCPUSeconds,
        ]
        if let serverCPUSeconds { out["server_cpu_s"] = serverCPUSeconds; out["server_cpu_pct"] = 100 * serverCPUSeconds / seconds }
        if let serverCPUSecondsEach { out["server_cpu_s_each"] = serverCPUSecondsEach }
        if let us = serverMicrosPerMessage { out["server_cpu_us_per_delivered"] = us }
        if let serverRSSKB { out["server_rss_kb"] = serverRSSKB }
        return out
    }

    func line(_ label: String) -> String {
        var s = String(format: "%@ sent %.0f/s acked %.0f/s delivered %.0f/s | latency ms p50 %.2f p90 %.2f p99 %.2f p99.9 %.2f max %.2f | lost %d dup %d errors %d",
                       label, sentRate, ackedRate, deliveredRate, p50, p90, p99, p999, max, lost, duplicates, errors)
        if let cpu = serverCPUSeconds {
            s += String(format: " | server CPU %.0f%%", 100 * cpu / seconds)
            if let each = serverCPUSecondsEach {
                s += " (" + each.map { String(format: "%.0f%%", 100 * $0 / seconds) }.joined(separator: " + ") + ")"
            }
            if let us = serverMicrosPerMessage { s += String(format: " %.1f µs/msg", us) }
        }
        if let rss = serverRSSKB { s += String(format: " RSS %.1f MB", Double(rss) / 1024) }
        s += String(format: " | generator CPU %.0f%%", 100 * generatorCPUSeconds / seconds)
        return s
    }
}

/// N visitor/agent pairs (or N relay pairs for the floor) on one event loop. Socket `2p` is pair
/// p's visitor, `2p+1` its agent; sender `s` is socket `s`, and what it sends goes to socket `s^1`.
/// Message ids carry sender, number and intended send time: `m<s>.<n>.<t>`.
final class PairEngine: SocketDelegate, @unchecked Sendable {
    let loop: any EventLoop
    let target: Target
    let pairs: Int
    let payload: String
    var sockets: [Socket?]
    var conversationIDs: [String]

    // Setup bookkeeping.
    var readyCount = 0
    var subscribedCount = 0
    var closedCount = 0
    var firstErrors: [String] = []

    // Per sender.
    var nextN: [Int]
    var lastDelivered: [Int]
    var received: [[UInt8]]
    var credits: [Int]

    // Totals since the start (exactly-once accounting).
    var totalSent = 0, totalAcked = 0, totalUnique = 0, totalDuplicates = 0, totalOutOfOrder = 0, totalErrors = 0, ackDuplicates = 0

    // The current phase.
    var windowStart: UInt64 = .max
    var windowEnd: UInt64 = .max
    var windowSent = 0, windowAcked = 0, windowDelivered = 0
    var histogram = Histogram<UInt64>(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)   // µs
    var secondHistogram = Histogram<UInt64>(highestTrackableValue: 120_000_000, numberOfSignificantValueDigits: .three)
    var secondSent = 0, secondAcked = 0, secondDelivered = 0

    // Sending schedule.
    var sending = false
    var flatOut = false
    var scheduleStart: UInt64 = 0
    var interval: Double = 0   // ns between messages, open loop
    var issued = 0
    var ticker: RepeatedTask?
    var dirty: [Int] = []

    /// Prosody only (PairEngine+XMPP.swift); here because extensions cannot hold state.
    var xmpp = XMPPPairState()

    init(loop: any EventLoop, target: Target, pairs: Int, size: Int) {
        self.loop = loop
        self.target = target
        self.pairs = pairs
        self.payload = String(repeating: "x", count: max(1, size))
        sockets = Array(repeating: nil, count: 2 * pairs)
        conversationIDs = Array(repeating: "cnv_floor", count: pairs)
        nextN = Array(repeating: 0, count: 2 * pairs)
        lastDelivered = Array(repeating: -1, count: 2 * pairs)
        received = Array(repeating: [], count: 2 * pairs)
        credits = Array(repeating: 0, count: 2 * pairs)
    }

    // MARK: SocketDelegate

    func socketOpened(_ socket: Socket) {
        if target == .floor { readyCount += 1 }
    }

    func socketClosed(_ socket: Socket) {
        closedCount += 1
        if sending { totalErrors += 1; note("socket \(socket.index) closed during the run") }
    }

    func socket(_ socket: Socket, text: ByteBuffer) {
        let me = socket.index
        text.withUnsafeReadableBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            if target == .floor {
                if let (s, n, t) = Self.messageID(in: bytes) { deliver(to: me, sender: s, n: n, intended: t) }
                return
            }
            switch Self.frameType(bytes) {
            case "event":
                guard let (s, n, t) = Self.messageID(in: bytes) else { return }
                if s != me { deliver(to: me, sender: s, n: n, intended: t) }
            case "ack":
                guard Self.messageID(in: bytes) != nil else { return }
                countAcked(1)
                if Self.find(Array("\"duplicate\":true".utf8), in: bytes) != nil { ackDuplicates += 1 }
            case "ready":
                readyCount += 1
            case "subscribed":
                subscribedCount += 1
            case "error":
                totalErrors += 1
                note(String(decoding: UnsafeRawBufferPointer(bytes), as: UTF8.self))
            default:
                break
            }
        }
    }

    func note(_ text: String) {
        if firstErrors.count < 10 { firstErrors.append(text) }
    }

    func countAcked(_ count: Int) {
        totalAcked += count
        secondAcked += count
        let now = nowNanos()
        if now >= windowStart && now < windowEnd { windowAcked += count }
    }

    func deliver(to receiver: Int, sender s: Int, n: Int, intended: UInt64) {
        guard s >= 0, s < received.count, s ^ 1 == receiver, n >= 0 else {
            totalErrors += 1
            note("message m\(s).\(n) reached socket \(receiver)")
            return
        }
        let now = nowNanos()
        if received[s].count <= n { received[s].append(contentsOf: repeatElement(0, count: max(n + 1 - received[s].count, received[s].count))) }
        if received[s][n] != 0 {
            totalDuplicates += 1
            return
        }
        received[s][n] = 1
        totalUnique += 1
        if n < lastDelivered[s] { totalOutOfOrder += 1 }
        lastDelivered[s] = max(lastDelivered[s], n)
        let micros = now > intended ? (now - intended) / 1000 : 0
        _ = secondHistogram.record(micros)
        secondDelivered += 1
        if now >= windowStart && now < windowEnd { windowDelivered += 1 }
        if intended >= windowStart && intended < windowEnd { _ = histogram.record(micros) }
        if flatOut && sending {
            credits[s] += 1
            sendFlat(s)
            flushDirty()
        }
    }

    // MARK: Sending

    private func send(_ s: Int, intended: UInt64) {
        guard let socket = sockets[s], socket.isOpen else { return }
        let n = nextN[s]
        nextN[s] = n + 1
        let id = "m\(s).\(n).\(intended)"
        if target == .prosody {
            writeXMPPMessage(from: s, id: id)
        } else {
            writeJSONMessage(socket, from: s, id: id, n: n)
        }
        dirty.append(s)
        totalSent += 1
        secondSent += 1
        if intended >= windowStart && intended < windowEnd { windowSent += 1 }
    }

    private func writeJSONMessage(_ socket: Socket, from s: Int, id: String, n: Int) {
        let frame = "{\"client_message_id\":\"\(id)\",\"conversation_id\":\"\(conversationIDs[s / 2])\",\"ref\":\"\(n)\",\"text\":\"\(payload)\",\"type\":\"send\"}"
        var buffer = socket.context!.channel.allocator.buffer(capacity: frame.utf8.count)
        buffer.writeString(frame)
        socket.write(buffer)
    }

    private func sendFlat(_ s: Int) {
        while credits[s] > 0 {
            credits[s] -= 1
            send(s, intended: nowNanos())
        }
    }

    private func flushDirty() {
        for s in dirty { sockets[s]?.flushIfNeeded() }
        dirty.removeAll(keepingCapacity: true)
    }

    private func tick() {
        guard sending, !flatOut else { return }
        let now = nowNanos()
        let due = Int(Double(now - scheduleStart) / interval) + 1
        let senders = sockets.count
        while issued < due {
            let k = issued
            issued += 1
            send(k % senders, intended: scheduleStart + UInt64(Double(k) * interval))
        }
        flushDirty()
    }

    /// Starts sending (on the loop): open loop at `rate` msg/s in all, or flat out with `inflight`
    /// messages per sender when rate is 0. The window is [start + warmup, start + warmup + duration).
    func start(rate: Double, inflight: Int, warmup: Double, duration: Double) {
        let now = nowNanos()
        windowStart = now + UInt64(warmup * 1e9)
        windowEnd = windowStart + UInt64(duration * 1e9)
        windowSent = 0; windowAcked = 0; windowDelivered = 0
        histogram.reset()
        sending = true
        flatOut = rate <= 0
        if flatOut {
            for s in 0..<sockets.count {
                credits[s] = inflight
                sendFlat(s)
            }
            flushDirty()
        } else {
            interval = 1e9 / rate
            scheduleStart = now
            issued = 0
            ticker = loop.scheduleRepeatedTask(initialDelay: .zero, delay: .microseconds(500)) { [weak self] _ in self?.tick() }
        }
    }

    func stop() {
        sending = false
        ticker?.cancel()
        ticker = nil
        for s in 0..<credits.count { credits[s] = 0 }
    }

    /// Counters for the progress line; resets the per-second ones.
    func takeSecond() -> (sent: Int, acked: Int, delivered: Int, p99: Double) {
        let out = (secondSent, secondAcked, secondDelivered, Double(secondHistogram.valueAtPercentile(99)) / 1000)
        secondSent = 0; secondAcked = 0; secondDelivered = 0
        secondHistogram.reset()
        return out
    }

    var outstanding: Int { (totalSent - totalUnique) + (target.acknowledges ? totalSent - totalAcked : 0) }

    // MARK: Parsing (keys are sorted, so the top-level "type" is the last key of a frame)

    static func find(_ needle: [UInt8], in bytes: UnsafeBufferPointer<UInt8>, from start: Int = 0) -> Int? {
        let n = needle.count
        guard bytes.count >= n else { return nil }
        var i = start
        let first = needle[0]
        while i <= bytes.count - n {
            if bytes[i] == first {
                var j = 1
                while j < n && bytes[i + j] == needle[j] { j += 1 }
                if j == n { return i }
            }
            i += 1
        }
        return nil
    }

    static func frameType(_ bytes: UnsafeBufferPointer<UInt8>) -> String {
        // ..."type":"xxx"}
        guard bytes.count > 10, bytes[bytes.count - 1] == UInt8(ascii: "}"), bytes[bytes.count - 2] == UInt8(ascii: "\"") else { return "" }
        var i = bytes.count - 3
        while i > 0 && bytes[i] != UInt8(ascii: "\"") { i -= 1 }
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[(i + 1)..<(bytes.count - 2)]), as: UTF8.self)
    }

    private static let idKey = Array("\"client_message_id\":\"m".utf8)

    /// Reads `m<s>.<n>.<t>` after `"client_message_id":"`.
    static func messageID(in bytes: UnsafeBufferPointer<UInt8>) -> (Int, Int, UInt64)? {
        guard let i = find(idKey, in: bytes) else { return nil }
        return messageNumbers(in: bytes, from: i + idKey.count, to: bytes.count)
    }

    /// Reads `<s>.<n>.<t>` (a message id after its `m`) from `start`, stopping at the first other byte or `end`.
    static func messageNumbers(in bytes: UnsafeBufferPointer<UInt8>, from start: Int, to end: Int) -> (Int, Int, UInt64)? {
        var i = start
        var numbers: [UInt64] = [0, 0, 0]
        var k = 0
        while i < end {
            let c = bytes[i]
            if c >= 48 && c <= 57 {
                numbers[k] = numbers[k] &* 10 &+ UInt64(c - 48)
            } else if c == UInt8(ascii: ".") && k < 2 {
                k += 1
            } else {
                break
            }
            i += 1
        }
        guard k == 2 else { return nil }
        return (Int(numbers[0]), Int(numbers[1]), numbers[2])
    }
}
