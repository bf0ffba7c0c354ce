import ArgumentParser
import Foundation
import Hummingbird
import Logging
import ParleyCore
import ParleyServer
import ParleyStore

/// `parleyd serve`: runs the server until SIGINT or SIGTERM.
struct Serve: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Run the server (the default).",
        discussion: """
            Every option also reads an environment variable; a flag wins over it.
            On first start with an empty database it creates a demo app, queue and agent and prints them.
            """)

    @OptionGroup var common: CommonOptions

    @Option(help: "The address to bind (env PARLEY_HOST; default 127.0.0.1).")
    var host: String?

    @Option(help: "The port to bind, 0 for any free one (env PARLEY_PORT; default 8080).")
    var port: Int?

    @Option(name: .customLong("offline-grace"), help: "Seconds an agent who went offline keeps their conversations (env PARLEY_OFFLINE_GRACE; default 120).")
    var offlineGrace: Double?

    @Option(name: .customLong("node-heartbeat"), help: ArgumentHelp(
        "With PostgreSQL: seconds between this node's heartbeats and routing sweeps (env PARLEY_NODE_HEARTBEAT; default 5).",
        valueName: "seconds"))
    var nodeHeartbeat: Double?

    @Option(name: .customLong("node-timeout"), help: ArgumentHelp(
        "With PostgreSQL: seconds of silence after which the other nodes count a node gone (env PARLEY_NODE_TIMEOUT; default 20).",
        valueName: "seconds"))
    var nodeTimeout: Double?

    @Option(name: .customLong("smtp"), help: ArgumentHelp(
        "Email transcripts through this SMTP server: smtp://host[:port] (a relay) or smtps://user:password@host[:465] (env PARLEY_SMTP_URL; default: no email).",
        valueName: "url"))
    var smtp: String?

    @Option(name: .customLong("mail-from"), help: ArgumentHelp(
        "The sender of transcript emails, \"Name <address>\" or an address (env PARLEY_MAIL_FROM; required with --smtp).", valueName: "sender"))
    var mailFrom: String?

    @Option(name: .customLong("admin-token"), help: "Operator token for /v1/admin/apps (env PARLEY_ADMIN_TOKEN; default: none, disabled).")
    var adminToken: String?

    @Option(name: .customLong("desk-dir"), help: ArgumentHelp(
        "Serve the agent desk from this folder, re-read on every request, for working on it (env PARLEY_DESK_DIR; default: the bundled desk).",
        valueName: "dir"))
    var deskDirectory: String?

    @Option(name: .customLong("chat-dir"), help: ArgumentHelp(
        "Serve the visitor chat page from this folder, re-read on every request, for working on it (env PARLEY_CHAT_DIR; default: the bundled page).",
        valueName: "dir"))
    var chatDirectory: String?

    @Flag(name: .customLong("secure-cookies"), inversion: .prefixedNo, help: ArgumentHelp(
        "Mark the desk's session cookie Secure always / never (default: when a proxy sends X-Forwarded-Proto: https).",
        valueName: "secure-cookies"))
    var secureCookies: Bool?

    @Option(name: .customLong("password-cost"), help: ArgumentHelp("bcrypt cost for agent passwords (default 12).", visibility: .hidden))
    var passwordCost: UInt8?

    @Flag(name: .customLong("rate-limits"), inversion: .prefixedNo, help: ArgumentHelp(
        "Limit visitor sessions, messages and agent logins per client (default on; --no-rate-limits or env PARLEY_RATE_LIMITS=off for load tests on loopback).",
        valueName: "rate-limits"))
    var rateLimits = true

    @Option(name: .customLong("trusted-proxy"), help: ArgumentHelp(
        "An address or range (10.0.0.0/8) of a reverse proxy whose X-Forwarded-For names the client; repeat for more (env PARLEY_TRUSTED_PROXIES, comma-separated).",
        valueName: "range"))
    var trustedProxies: [String] = []

    @Option(name: .customLong("clamav"), help: ArgumentHelp(
        "Scan every upload with the ClamAV daemon at this socket, refusing what it finds and what it cannot scan (env PARLEY_CLAMAV_SOCKET).",
        valueName: "socket"))
    var clamAV: String?

    @Option(name: .customLong("max-attachment-bytes"), help: ArgumentHelp(
        "The largest attachment the server takes, whatever an app's policy says (env PARLEY_MAX_ATTACHMENT_BYTES; default 104857600).",
        valueName: "bytes"))
    var maxAttachmentBytes: Int64?

    @Option(name: .customLong("request-head-timeout"), help: ArgumentHelp(
        "Seconds a new connection has to send its first request head before it is closed (env PARLEY_REQUEST_HEAD_TIMEOUT; default 10).",
        valueName: "seconds"))
    var requestHeadTimeout: Double?

    @Option(name: .customLong("tls-certificate"), help: ArgumentHelp(
        "Serve HTTPS and wss with this certificate chain, PEM, leaf first (env PARLEY_TLS_CERTIFICATE; needs --tls-key; default: plain HTTP).",
        valueName: "path"))
    var tlsCertificate: String?

    @Option(name: .customLong("tls-key"), help: ArgumentHelp(
        "The private key of --tls-certificate, PEM (env PARLEY_TLS_KEY).", valueName: "path"))
    var tlsKey: String?

    @Flag(name: .customLong("allow-private-outbound"), help: ArgumentHelp(
        "Let apps' auth services, key sets, webhooks and push providers be on loopback or private addresses, and plain http (tests, private networks only)."))
    var allowPrivateOutbound = false

    @Option(name: .customLong("secrets-key-file"), help: ArgumentHelp(
        "A file of 32 bytes (raw, or 64 hex digits, or base64) that seals secrets kept in the database, such as webhook signing secrets "
            + "(env PARLEY_SECRETS_KEY as base64 or hex; default: secrets.key in the data directory, made once). Every node needs the same key."))
    var secretsKeyFile: String?

    @Option(name: .customLong("webhook-retry-hours"), help: ArgumentHelp(
        "How long a failing webhook delivery is retried before it is given up and its endpoint disabled (env PARLEY_WEBHOOK_RETRY_HOURS; default 72)."))
    var webhookRetryHours: Double?

    @Option(name: .customLong("webhook-rotation-overlap-hours"), help: ArgumentHelp(
        "How long a rotated webhook secret keeps signing beside the new one (env PARLEY_WEBHOOK_ROTATION_OVERLAP_HOURS; default 24)."))
    var webhookRotationOverlapHours: Double?

    @Option(name: .customLong("webhook-first-retry"), help: ArgumentHelp(
        "Seconds before a failed webhook delivery's first retry; later ones double (default 5).", visibility: .hidden))
    var webhookFirstRetry: Double?

    @Option(name: .customLong("push-delay"), help: ArgumentHelp(
        "Seconds after an agent's message before its push is sent; a visitor who reads it meanwhile gets none (env PARLEY_PUSH_DELAY; default 3)."))
    var pushDelay: Double?

    @Option(name: .customLong("push-retry-hours"), help: ArgumentHelp(
        "How long a push the provider refuses for now (429, 5xx, no answer) is retried (env PARLEY_PUSH_RETRY_HOURS; default 4)."))
    var pushRetryHours: Double?

    @Option(name: .customLong("push-first-retry"), help: ArgumentHelp(
        "Seconds before a failed push's first retry; later ones double (default 2).", visibility: .hidden))
    var pushFirstRetry: Double?

    @Option(name: .customLong("apns-url"), help: ArgumentHelp(
        "APNs for production tokens (env PARLEY_APNS_URL; default https://api.push.apple.com).", valueName: "url"))
    var apnsURL: String?

    @Option(name: .customLong("apns-sandbox-url"), help: ArgumentHelp(
        "APNs for sandbox tokens (env PARLEY_APNS_SANDBOX_URL; default https://api.sandbox.push.apple.com).", valueName: "url"))
    var apnsSandboxURL: String?

    @Option(name: .customLong("fcm-url"), help: ArgumentHelp(
        "FCM's HTTP v1 API (env PARLEY_FCM_URL; default https://fcm.googleapis.com).", valueName: "url"))
    var fcmURL: String?

    @Option(name: .customLong("outbound-ca-file"), help: ArgumentHelp(
        "PEM certificates parleyd's own requests trust beside the system's (local push provider fakes in tests).", valueName: "path"))
    var outboundCAFile: String?

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        let logger = common.makeLogger()
        let data = DataDirectory(path: common.resolvedDataDirectory)
        let metrics = ServerMetrics()
        let store = try await common.openStore(logger: logger, metricsFactory: metrics.factory)

        var configuration = ServerConfiguration(
            tokenKey: try await data.tokenKey(store: store, sharedDatabase: common.resolvedDatabase != nil))
        configuration.metrics = metrics
        configuration.host = host ?? environment["PARLEY_HOST"] ?? "127.0.0.1"
        configuration.port = try port ?? environment["PARLEY_PORT"].map { text in
            guard let value = Int(text) else { throw ValidationError("PARLEY_PORT must be a number") }
            return value
        } ?? 8080
        if let grace = offlineGrace ?? environment["PARLEY_OFFLINE_GRACE"].flatMap(Double.init) { configuration.offlineGrace = grace }
        if let beat = nodeHeartbeat ?? environment["PARLEY_NODE_HEARTBEAT"].flatMap(Double.init) { configuration.nodeHeartbeat = beat }
        if let timeout = nodeTimeout ?? environment["PARLEY_NODE_TIMEOUT"].flatMap(Double.init) { configuration.nodeTimeout = timeout }
        if let url = smtp ?? environment["PARLEY_SMTP_URL"].flatMap({ $0.isEmpty ? nil : $0 }) {
            guard let sender = mailFrom ?? environment["PARLEY_MAIL_FROM"] else { throw ValidationError("--smtp needs --mail-from") }
            do {
                configuration.smtp = try SMTPConfiguration(url: url, from: sender)
            } catch {
                throw ValidationError("\(error)")
            }
        }
        guard configuration.nodeHeartbeat > 0, configuration.nodeTimeout > configuration.nodeHeartbeat else {
            throw ValidationError("--node-timeout must be longer than --node-heartbeat, and both positive")
        }
        configuration.adminToken = adminToken ?? environment["PARLEY_ADMIN_TOKEN"]
        if let passwordCost { configuration.passwordCost = passwordCost }
        if let folder = deskDirectory ?? environment["PARLEY_DESK_DIR"] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--desk-dir \(folder) is not a folder")
            }
            configuration.deskDirectory = URL(fileURLWithPath: folder, isDirectory: true)
        }
        if let folder = chatDirectory ?? environment["PARLEY_CHAT_DIR"] {
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: folder, isDirectory: &isFolder), isFolder.boolValue else {
                throw ValidationError("--chat-dir \(folder) is not a folder")
            }
            configuration.chatDirectory = URL(fileURLWithPath: folder, isDirectory: true)
        }
        configuration.secureCookies = secureCookies
        if !rateLimits || environment["PARLEY_RATE_LIMITS"] == "off" { configuration.rateLimits = .off }
        let proxies = trustedProxies + (environment["PARLEY_TRUSTED_PROXIES"].map { $0.split(separator: ",").map(String.init) } ?? [])
        do {
            configuration.trustedProxies = try TrustedProxies(proxies.map { $0.trimmingCharacters(in: .whitespaces) })
        } catch {
            throw ValidationError("--trusted-proxy: \(error)")
        }
        if allowPrivateOutbound { configuration.outbound = .loopbackForTests }
        if let socket = clamAV ?? environment["PARLEY_CLAMAV_SOCKET"].flatMap({ $0.isEmpty ? nil : $0 }) {
            configuration.malwareScanner = ClamAVScanner(socketPath: socket)
        }
        if let limit = maxAttachmentBytes ?? environment["PARLEY_MAX_ATTACHMENT_BYTES"].flatMap({ Int64($0) }) {
            guard limit > 0 else { throw ValidationError("--max-attachment-bytes must be positive") }
            configuration.maxAttachmentBytes = limit
        }
        if let seconds = try requestHeadTimeout ?? environment["PARLEY_REQUEST_HEAD_TIMEOUT"].map({ text in
            guard let value = Double(text) else { throw ValidationError("PARLEY_REQUEST_HEAD_TIMEOUT must be a number") }
            return value
        }) {
            guard seconds > 0 else { throw ValidationError("--request-head-timeout must be a positive number of seconds") }
            configuration.requestHeadTimeout = .milliseconds(Int64(seconds * 1000))
        }
        switch (tlsCertificate ?? environment["PARLEY_TLS_CERTIFICATE"], tlsKey ?? environment["PARLEY_TLS_KEY"]) {
        case (nil, nil):
            break
        case (let certificate?, let key?):
            do {
                configuration.tls = try ServerTLS(certificateChainPath: certificate, privateKeyPath: key)
            } catch {
                throw ValidationError("--tls-certificate/--tls-key: \(error)")
            }
        default:
            throw ValidationError("--tls-certificate and --tls-key go together")
        }

        configuration.secretsKey = try data.secretsKey(file: secretsKeyFile, environment: environment["PARLEY_SECRETS_KEY"])
        if let hours = webhookRetryHours ?? environment["PARLEY_WEBHOOK_RETRY_HOURS"].flatMap(Double.init) {
            guard hours > 0 else { throw ValidationError("--webhook-retry-hours must be positive") }
            configuration.webhooks.backoff.retryDuration = hours * 3600
        }
        if let seconds = webhookFirstRetry {
            guard seconds > 0 else { throw ValidationError("--webhook-first-retry must be positive") }
            configuration.webhooks.backoff.initialDelay = seconds
        }
        try configurePush(&configuration, environment: environment)
        if let hours = webhookRotationOverlapHours ?? environment["PARLEY_WEBHOOK_ROTATION_OVERLAP_HOURS"].flatMap(Double.init) {
            guard hours >= 0 else { throw ValidationError("--webhook-rotation-overlap-hours must not be negative") }
            configuration.webhooks.rotationOverlap = hours * 3600
        }

        let server = ParleyServer(configuration: configuration, store: store, logger: logger)
        let demo = try await server.administration.bootstrapDemo()
        let host = configuration.host
        let isTLS = configuration.tls != nil
        let app = try await server.makeApplication { port in
            Banner.print(demo: demo, host: host, port: port, isTLS: isTLS)
        }
        logger.info("starting", metadata: ["parley.data": "\(data.path)", "parley.version": "\(configuration.version)"])
        try await app.runService()
        // Every request has finished; let the last commits land before the process ends.
        try await store.close()
        logger.info("stopped")
    }
}

/// What parleyd prints once it listens.
enum Banner {
    static func print(demo: DemoSetup?, host: String, port: Int, isTLS: Bool) {
        let base = "\(isTLS ? "https" : "http")://\(host):\(port)"
        var lines = ["", "Parley \(ParleyVersion.current) is listening on \(base)"]
        if let demo {
            lines += [
                "",
                "First start: created a demo app, queue and agent.",
                "  app id:       \(demo.app.app.id)",
                "  queue:        \(demo.queue.id) (\(demo.queue.name))",
                "  agent login:  \(demo.agent.email)",
                "  password:     \(demo.password)   (shown once; change it with parleyd admin agent update)",
            ]
        }
        lines += [
            "",
            "  agent desk:   \(base)/desk/",
            "  health:       \(base)/health",
            "  HTTP API:     \(base)/v1   (docs/protocol.md)",
            "  realtime:     \(isTLS ? "wss" : "ws")://\(host):\(port)/v1/realtime",
            "",
        ]
        Swift.print(lines.joined(separator: "\n"))
        fflush(nil)
    }
}

extension Serve {
    /// The push options: providers' URLs, the delay, retries, extra trusted certificates.
    func configurePush(_ configuration: inout ServerConfiguration, environment: [String: String]) throws {
        if let seconds = pushDelay ?? environment["PARLEY_PUSH_DELAY"].flatMap(Double.init) {
            guard seconds >= 0 else { throw ValidationError("--push-delay must not be negative") }
            configuration.push.delay = seconds
        }
        if let hours = pushRetryHours ?? environment["PARLEY_PUSH_RETRY_HOURS"].flatMap(Double.init) {
            guard hours > 0 else { throw ValidationError("--push-retry-hours must be positive") }
            configuration.push.backoff.retryDuration = hours * 3600
        }
        if let seconds = pushFirstRetry {
            guard seconds > 0 else { throw ValidationError("--push-first-retry must be positive") }
            configuration.push.backoff.initialDelay = seconds
        }
        func url(_ option: String?, _ variable: String, _ name: String) throws -> URL? {
            guard let text = option ?? environment[variable] else { return nil }
            guard let url = URL(string: text), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw ValidationError("\(name) must be an absolute http(s) URL")
            }
            return url
        }
        if let url = try url(apnsURL, "PARLEY_APNS_URL", "--apns-url") { configuration.push.apnsProductionURL = url }
        if let url = try url(apnsSandboxURL, "PARLEY_APNS_SANDBOX_URL", "--apns-sandbox-url") { configuration.push.apnsSandboxURL = url }
        if let url = try url(fcmURL, "PARLEY_FCM_URL", "--fcm-url") { configuration.push.fcmURL = url }
        if let path = outboundCAFile {
            guard FileManager.default.isReadableFile(atPath: path) else { throw ValidationError("--outbound-ca-file: \(path) is not readable") }
            configuration.outboundTrustRootsFile = path
        }
    }
}
