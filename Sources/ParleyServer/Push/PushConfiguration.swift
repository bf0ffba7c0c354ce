import Foundation

/// How pushes are delivered (``ServerConfiguration/push``). Every default is the one stated.
public struct PushConfiguration: Sendable {
    /// Run the push worker on this node. Default true. (With several nodes, every node runs one;
    /// they share the rows.)
    public var isDeliveryEnabled = true
    /// How long after the event a push is due. A visitor who reads the conversation meanwhile
    /// (the app in front, the socket live) gets no push. Default 3 s; 0 in most tests.
    public var delay: TimeInterval = 3
    /// APNs for production tokens. Default `https://api.push.apple.com`.
    public var apnsProductionURL = URL(string: "https://api.push.apple.com")!
    /// APNs for the sandbox's tokens (debug builds). Default `https://api.sandbox.push.apple.com`.
    public var apnsSandboxURL = URL(string: "https://api.sandbox.push.apple.com")!
    /// FCM's HTTP v1 API. Default `https://fcm.googleapis.com`.
    public var fcmURL = URL(string: "https://fcm.googleapis.com")!
    /// Retry waits and how long a push is retried: 2 s doubling to 10 min, ±20 %, for 4 h (a
    /// notification later than that is news nobody wants).
    public var backoff: DeliveryBackoff = {
        var backoff = DeliveryBackoff()
        backoff.initialDelay = 2
        backoff.maximumDelay = 600
        backoff.retryDuration = 4 * 3600
        return backoff
    }()
    /// How often the worker looks for due pushes when nothing rang. Default 0.5 s.
    public var pollInterval: TimeInterval = 0.5
    /// Pushes in flight at once on this node. Default 32.
    public var concurrency = 32
    /// The `u` of each retry's jitter, uniform in [−1, 1]. Default random; tests pass `{ 0 }`.
    public var random: @Sendable () -> Double = { Double.random(in: -1...1) }

    public init() {}
}
