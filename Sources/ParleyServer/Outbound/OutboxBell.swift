import ParleyCore

/// Wakes the outbox workers (webhooks, push) when something may have become due on this node (a
/// commit, a rating, an endpoint enabled, a resend), so a delivery does not wait for the next poll.
/// Every worker listens on its own stream; rings coalesce: however many arrive while a worker is
/// busy, it looks once more.
final class OutboxBell: Sendable {
    private let listeners = Locked<[AsyncStream<Void>.Continuation]>([])

    /// A new listener's rings.
    func rings() -> AsyncStream<Void> {
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        listeners.withLock { $0.append(continuation) }
        return stream
    }

    func ring() {
        for listener in listeners.withLock({ $0 }) { listener.yield() }
    }
}
