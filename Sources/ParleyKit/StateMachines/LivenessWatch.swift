import Foundation

/// Whether an open socket still reaches the server, decided from what was sent and heard.
///
/// WebSocket pings only tell the transport, and a connection that stopped forwarding (a phone that
/// lost its network silently, a half-open TCP link) can take a minute to fail on its own. The
/// server answers every `send`, `subscribe` and `ping`, so the client knows better: when a frame
/// that is answered got nothing at all back within ``answerTimeout``, the socket is dead and the
/// link reconnects (the outbox resends, idempotently). A socket that heard nothing for
/// ``idleProbe`` is asked, with a `ping`, so a quiet connection is checked too.
struct LivenessWatch: Sendable, Hashable {
    /// What to do at a check.
    enum Verdict: Hashable, Sendable {
        /// Nothing: the socket is heard from, or an answer is not yet due.
        case fine
        /// Send a `ping`: nothing was heard for a while and nothing is awaited.
        case probe
        /// An answer is overdue: the socket no longer reaches the server.
        case dead
    }

    let answerTimeout: TimeInterval
    let idleProbe: TimeInterval
    /// When the oldest unanswered frame must have been answered by; nil when none is awaited.
    private(set) var answerDue: Date?
    private(set) var lastHeard: Date

    init(answerTimeout: TimeInterval, idleProbe: TimeInterval, openedAt: Date) {
        self.answerTimeout = answerTimeout
        self.idleProbe = idleProbe
        lastHeard = openedAt
    }

    /// A frame went out; `answered` when the server answers that kind (`send`, `subscribe`, `ping`).
    mutating func sent(answered: Bool, at now: Date) {
        guard answered, answerDue == nil else { return }
        answerDue = now.addingTimeInterval(answerTimeout)
    }

    /// A frame came in: the socket reaches the server, whatever it was.
    mutating func heard(at now: Date) {
        lastHeard = now
        answerDue = nil
    }

    func check(at now: Date) -> Verdict {
        if let answerDue { return now >= answerDue ? .dead : .fine }
        return now.timeIntervalSince(lastHeard) >= idleProbe ? .probe : .fine
    }

    /// How often to check: often enough that an overdue answer is seen within half a timeout.
    var checkInterval: TimeInterval { min(answerTimeout, idleProbe) / 2 }
}
