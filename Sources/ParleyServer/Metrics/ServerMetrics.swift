import CoreMetrics
import Prometheus

/// What parleyd counts, for `GET /metrics` in the Prometheus text format (docs/operations.md lists
/// every name). Made with swift-metrics handles over a registry of this server's own, so several
/// servers in one process (tests) keep apart; the stores take ``factory`` for their own figures.
public struct ServerMetrics: Sendable {
    /// Where every figure is kept, and what `/metrics` prints.
    public let registry: PrometheusCollectorRegistry
    /// The factory the stores make their metrics with (commit batches, fsync time, node notices).
    public let factory: any MetricsFactory

    /// Open realtime connections, by caller kind.
    let visitorConnections: Meter
    let agentConnections: Meter
    /// Changes committed (messages, state changes, reads), and the events they stored.
    let changesCommitted: CoreMetrics.Counter
    let eventsCommitted: CoreMetrics.Counter
    /// Event frames written to sockets (each subscriber counts).
    let eventsDelivered: CoreMetrics.Counter
    /// From a change handed to the committer to its answer: durable, published, routed.
    let commitDuration: CoreMetrics.Timer
    /// Other nodes' commits heard, and how long after the event was stored.
    let noticesReceived: CoreMetrics.Counter
    let noticeLag: CoreMetrics.Timer
    /// Sampled when `/metrics` is read.
    let conversationsWaiting: Meter
    let agentsConnected: Meter
    /// Texts that arrived holding something the app's masking rules mask (ParleyKit masks before
    /// sending, so these came from the desk, the API, or a device with older rules).
    let textsMasked: CoreMetrics.Counter

    /// A fresh registry and its metrics.
    public init() {
        let registry = PrometheusCollectorRegistry()
        var factory = PrometheusMetricsFactory(registry: registry)
        let fast: [Duration] = [
            .microseconds(100), .microseconds(250), .microseconds(500), .milliseconds(1), .milliseconds(2), .milliseconds(5),
            .milliseconds(10), .milliseconds(25), .milliseconds(50), .milliseconds(100), .milliseconds(250), .seconds(1),
        ]
        factory.defaultDurationHistogramBuckets = fast
        factory.durationHistogramBuckets = [
            Self.Name.noticeLag: [.milliseconds(1), .milliseconds(5), .milliseconds(10), .milliseconds(25), .milliseconds(50),
                                  .milliseconds(100), .milliseconds(250), .seconds(1), .seconds(5), .seconds(30)],
        ]
        factory.valueHistogramBuckets = [Self.Name.commitBatchSize: [1, 2, 4, 8, 16, 32, 64, 128, 256, 512]]
        self.registry = registry
        self.factory = factory
        visitorConnections = Meter(label: Self.Name.connections, dimensions: [("kind", "visitor")], factory: factory)
        agentConnections = Meter(label: Self.Name.connections, dimensions: [("kind", "agent")], factory: factory)
        changesCommitted = CoreMetrics.Counter(label: Self.Name.changesCommitted, factory: factory)
        eventsCommitted = CoreMetrics.Counter(label: Self.Name.eventsCommitted, factory: factory)
        eventsDelivered = CoreMetrics.Counter(label: Self.Name.eventsDelivered, factory: factory)
        commitDuration = CoreMetrics.Timer(label: Self.Name.commitDuration, factory: factory)
        noticesReceived = CoreMetrics.Counter(label: Self.Name.noticesReceived, factory: factory)
        noticeLag = CoreMetrics.Timer(label: Self.Name.noticeLag, factory: factory)
        conversationsWaiting = Meter(label: Self.Name.conversationsWaiting, factory: factory)
        agentsConnected = Meter(label: Self.Name.agentsConnected, factory: factory)
        textsMasked = CoreMetrics.Counter(label: Self.Name.textsMasked, factory: factory)
    }

    /// The metric names, as `/metrics` prints them (histograms add `_bucket`, `_sum`, `_count`).
    public enum Name {
        public static let connections = "parley_realtime_connections"
        public static let changesCommitted = "parley_changes_committed_total"
        public static let eventsCommitted = "parley_events_committed_total"
        public static let eventsDelivered = "parley_events_delivered_total"
        public static let commitDuration = "parley_commit_duration_seconds"
        public static let noticesReceived = "parley_node_notices_received_total"
        public static let noticeLag = "parley_node_notice_lag_seconds"
        public static let conversationsWaiting = "parley_conversations_waiting"
        public static let agentsConnected = "parley_agents_connected"
        public static let textsMasked = "parley_texts_masked_total"
        public static let outboxPending = "parley_outbox_pending"
        /// Made by the SQLite store: changes per transaction, and each transaction's time (its fsync).
        public static let commitBatchSize = "parley_commit_batch_size"
        public static let commitTransaction = "parley_commit_transaction_seconds"
        /// Made by the PostgreSQL store: notices sent to the other nodes, and the NOTIFYs carrying them.
        public static let noticesSent = "parley_node_notices_sent_total"
        public static let noticePayloads = "parley_node_notice_payloads_total"
    }
}

extension CoreMetrics.Timer {
    /// Records the time since `start` on the continuous clock.
    func recordInterval(since start: ContinuousClock.Instant) {
        let (seconds, attoseconds) = (ContinuousClock.now - start).components
        recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
    }
}
