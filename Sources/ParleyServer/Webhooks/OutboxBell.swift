/// Wakes the webhook worker when something may have become due on this node (a commit, a rating,
/// an endpoint enabled, a resend), so a delivery does not wait for the next poll. Rings coalesce:
/// however many arrive while the worker is busy, it looks once more.
final class OutboxBell: Sendable {
    private let continuation: AsyncStream<Void>.Continuation
    let rings: AsyncStream<Void>

    init() {
        (rings, continuation) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    func ring() { continuation.yield() }
}
