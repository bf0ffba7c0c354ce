import Foundation
import ParleyCore
import ParleyStore

/// How parleyd runs. Every default is the one stated; parleyd sets these from flags and environment.
public struct ServerConfiguration: Sendable {
    /// The address to bind. Default `127.0.0.1`.
    public var host: String = "127.0.0.1"
    /// The port to bind; 0 picks a free one (tests). Default 8080.
    public var port: Int = 8080
    /// The key that signs visitor tokens (32 random bytes; parleyd keeps it in the data directory).
    public var tokenKey: Data
    /// How long a visitor token lasts. Default 30 days.
    public var visitorTokenLifetime: TimeInterval = 30 * 24 * 3600
    /// How long an agent session lasts. Default 12 hours.
    public var agentSessionLifetime: TimeInterval = 12 * 3600
    /// How long an agent who went offline or lost every connection keeps their conversations before
    /// they go back to the head of the queue. Default 120 s.
    public var offlineGrace: TimeInterval = 120
    /// The operator token for app-level administration (`Authorization: Bearer …`); nil disables it.
    /// Default nil.
    public var adminToken: String?
    /// How many frames may wait for a slow realtime reader before it is cut off. Default 4096.
    public var realtimeBufferLimit: Int = 4096
    /// The SMTP server transcripts are emailed through; nil (the default) turns transcript email off.
    public var smtp: SMTPConfiguration?
    /// How long to wait before each retry of an email that could not be sent; after the last, it is
    /// given up. Default 30 s, 2 min, 10 min, 30 min, 1 h, 2 h, 4 h, 8 h.
    public var mailRetryDelays: [TimeInterval] = [30, 120, 600, 1_800, 3_600, 7_200, 14_400, 28_800]
    /// How often the outbox is checked for emails due. Default 2 s.
    public var mailPollInterval: TimeInterval = 2
    /// With a database several nodes share: how often this node beats its heartbeat, reads the other
    /// nodes' agents' connections and reconciles routing with the database. Default 5 s.
    public var nodeHeartbeat: TimeInterval = 5
    /// With a database several nodes share: how long a node may stay silent before the others count
    /// it gone, with its agents' connections. Default 20 s.
    public var nodeTimeout: TimeInterval = 20
    /// How long `GET /ready` waits for the database before answering 503. Default 2 s.
    public var readinessTimeout: TimeInterval = 2
    /// WebSocket ping interval; a peer that misses a pong for this long is disconnected. Default 30 s.
    public var heartbeat: Duration = .seconds(30)
    /// A connection that sends nothing for this long is closed (a request never finished, or one the
    /// HTTP parser could not answer). Keep it above the longest long poll (30 s) and two heartbeats:
    /// a live socket answers every ping. Default 75 s.
    public var idleTimeout: Duration = .seconds(75)
    /// A connection that has not sent its whole first request head (up to the empty line) this long
    /// after it opened (TLS handshake included) is closed: a client that trickles its head in, or
    /// never finishes it, holds no connection for longer. Default 10 s.
    public var requestHeadTimeout: Duration = .seconds(10)
    /// Serve HTTPS and `wss:` with this certificate and key, instead of plain HTTP and `ws:`.
    /// Default nil: plain, for loopback or behind a reverse proxy that ends TLS.
    public var tls: ServerTLS?
    /// bcrypt cost for agent passwords. Default 12.
    public var passwordCost: UInt8 = 12
    /// Serve the desk from this folder, re-read on every request, instead of the copy bundled with the
    /// server (for working on the desk). Default nil.
    public var deskDirectory: URL?
    /// Serve the visitor chat page from this folder, re-read (and compressed) on every request,
    /// instead of the copy bundled with the server (for working on the page). Default nil.
    public var chatDirectory: URL?
    /// Mark the desk's session cookie `Secure`: true always, false never, nil (the default) when the
    /// server serves TLS itself (``tls``) or the request came through a proxy that says it was
    /// HTTPS (`X-Forwarded-Proto: https`).
    public var secureCookies: Bool?
    /// Where the server reads the time and waits: stored timestamps, offline grace, token expiry,
    /// mail retries. Default the system's clock; tests pass a manual one.
    public var clock: any WallClock = SystemClock()
    /// What the server counts for `GET /metrics`; pass ``ServerMetrics/factory`` to the store too,
    /// so its figures (commit batches, fsync time, node notices) are in the same registry.
    /// Default a fresh registry.
    public var metrics = ServerMetrics()
    /// Further side effects kept with every commit, in its transaction (``CommitEffects``), beside
    /// the webhook rule the server always applies. Default none.
    public var commitEffects: any CommitEffects = NoCommitEffects()
    /// Webhook delivery: retries, rotation overlap, polling. Default ``WebhookConfiguration/init()``.
    public var webhooks = WebhookConfiguration()
    /// Push delivery: the providers' URLs, the delay before a push, retries. Default
    /// ``PushConfiguration/init()``: Apple's and Google's servers.
    public var push = PushConfiguration()
    /// PEM certificates parleyd's own requests trust beside the system's (local fakes of the push
    /// providers in tests). Default none.
    public var outboundTrustRootsFile: String?
    /// The 32-byte key that seals secrets kept in the database (webhook signing secrets, push
    /// provider keys, devices' auth secrets) with
    /// AES-GCM (``SecretBox``). Nil: webhooks cannot be made (409 `secrets_key_missing`). Default
    /// nil; parleyd reads `--secrets-key-file` / `PARLEY_SECRETS_KEY`, or makes `secrets.key` in its
    /// data directory.
    public var secretsKey: Data?
    /// How much of each kind of request one client may make (visitor sessions, messages, agent
    /// logins). Default ``RateLimits/init()``; ``RateLimits/off`` for load tests.
    public var rateLimits = RateLimits()
    /// Reverse proxies whose `X-Forwarded-For` names the client (for the rate limits). Default none:
    /// the client is the socket's peer.
    public var trustedProxies = TrustedProxies.none
    /// Where parleyd's own requests may go (apps' auth services and key sets). Default: public
    /// addresses over HTTPS only, 5 s, 1 MiB.
    public var outbound = OutboundPolicy()
    /// The version `/health` reports.
    public var version: String = ParleyVersion.current
    /// The largest attachment this server takes, whatever an app's policy says. Default 100 MiB.
    public var maxAttachmentBytes: Int64 = 100 << 20
    /// How often attachments past their app's retention, and bytes no message names, are removed;
    /// nil runs no sweep (tests that sweep by hand). Default hourly.
    public var attachmentSweepInterval: TimeInterval? = 3_600
    /// Scans every upload before it is accepted (parleyd `--clamav`). Default none.
    public var malwareScanner: (any MalwareScanner)?

    /// Creates a configuration with the given token key and the defaults above.
    public init(tokenKey: Data) {
        self.tokenKey = tokenKey
    }
}

/// Parley's version.
public enum ParleyVersion {
    public static let current = "0.1.0"
}
