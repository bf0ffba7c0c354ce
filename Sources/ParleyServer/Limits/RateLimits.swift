import Foundation

/// How much of each kind of request one client may make: beyond it, `429 too_many_requests` with
/// `Retry-After`. The defaults leave a real user alone (a person types far slower; an app opens a
/// session once per launch) and stop a script.
public struct RateLimits: Sendable, Hashable {
    /// Visitor sessions created from one client address. Default 20 at once, then 20 a minute.
    public var sessionsPerAddress = RateLimit(burst: 20, perMinute: 20)
    /// Visitor sessions created in one app, from anywhere. Default 600 at once, then 600 a minute.
    public var sessionsPerApp = RateLimit(burst: 600, perMinute: 600)
    /// Messages one visitor sends (HTTP and realtime together). Default 30 at once, then 120 a minute.
    public var messagesPerVisitor = RateLimit(burst: 30, perMinute: 120)
    /// Agent login attempts from one client address. Default 30 at once, then 30 a minute. Wrong
    /// passwords also make the next try wait (``LoginThrottle``), per account and per address.
    public var loginsPerAddress = RateLimit(burst: 30, perMinute: 30)
    /// Turns every limit above off (load tests on loopback). Default true.
    public var isEnabled = true

    /// The defaults above.
    public init() {}

    /// No limits at all.
    public static let off: RateLimits = {
        var limits = RateLimits()
        limits.isEnabled = false
        return limits
    }()
}
