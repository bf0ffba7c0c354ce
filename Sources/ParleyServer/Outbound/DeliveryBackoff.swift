import Foundation

/// When a failed delivery (a webhook call, a push) is tried again, as a pure function of its attempts (async-http-client
/// style: a formula, a table, injected randomness).
///
/// After attempt *n* fails, the next waits `min(initial × 2^(n−1), maximum) × (1 + jitter × u)`,
/// `u` uniform in [−1, 1]. With the defaults (5 s, 6 h, ±20 %):
///
/// | after attempt | 1 | 2 | 3 | 4 | 5 | 6 | 7 | 8 | 9 | 10 | 11 | 12 | 13 | 14… |
/// |---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|
/// | wait | 5 s | 10 s | 20 s | 40 s | 80 s | 160 s | 5.3 min | 11 min | 21 min | 43 min | 1.4 h | 2.8 h | 5.7 h | 6 h |
///
/// A delivery is given up when the next attempt would fall after `created + retryDuration`
/// (default 3 days: about 22 attempts); its endpoint is then disabled with the reason.
public struct DeliveryBackoff: Sendable, Hashable {
    /// The wait after the first failure. Default 5 s.
    public var initialDelay: TimeInterval = 5
    /// The longest wait between attempts. Default 6 h.
    public var maximumDelay: TimeInterval = 6 * 3600
    /// How long a delivery is retried, from its event. Default 3 days.
    public var retryDuration: TimeInterval = 3 * 24 * 3600
    /// The spread of each wait, as a fraction. Default 0.2 (±20 %); 0 in tests.
    public var jitter: Double = 0.2

    public init() {}

    /// The wait after attempt `attempt` (1-based) failed, for a `u` in [−1, 1].
    public func delay(after attempt: Int, u: Double) -> TimeInterval {
        let exponent = Double(max(0, min(attempt - 1, 40)))
        let base = min(initialDelay * pow(2, exponent), maximumDelay)
        return max(0, base * (1 + jitter * max(-1, min(1, u))))
    }

    /// When to try again after attempt `attempt` failed at `now`, or nil to give up.
    public func nextAttempt(after attempt: Int, at now: Date, created: Date, u: Double) -> Date? {
        let next = now.addingTimeInterval(delay(after: attempt, u: u))
        return next <= created.addingTimeInterval(retryDuration) ? next : nil
    }
}
