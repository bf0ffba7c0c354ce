import Foundation

/// How webhooks are delivered (``ServerConfiguration/webhooks``). Every default is the one stated.
public struct WebhookConfiguration: Sendable {
    /// Run the delivery worker on this node. Default true. (With several nodes, every node runs
    /// one; they share the rows.)
    public var isDeliveryEnabled = true
    /// Retry waits and how long a delivery is retried. Default ``DeliveryBackoff/init()``: 5 s
    /// doubling to 6 h, ±20 %, for 3 days.
    public var backoff = DeliveryBackoff()
    /// How long the secret before a rotation keeps signing beside the new one. Default 24 h.
    public var rotationOverlap: TimeInterval = 24 * 3600
    /// How often the worker looks for due deliveries when nothing rang (a commit on this node rings
    /// at once; another node's commit and retries wait for this). Default 1 s.
    public var pollInterval: TimeInterval = 1
    /// Deliveries in flight at once on this node. Default 16.
    public var concurrency = 16
    /// The `u` of each retry's jitter, uniform in [−1, 1]. Default random; tests pass `{ 0 }`.
    public var random: @Sendable () -> Double = { Double.random(in: -1...1) }

    public init() {}
}
