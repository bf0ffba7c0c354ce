import Foundation
import Hummingbird
import Logging
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyStoreSQLite
import ServiceLifecycle

/// A real parleyd in this process: a fresh SQLite file (or a store given), 127.0.0.1:0, the demo
/// app, queue and agent.
public final class TestServer: Sendable {
    public let port: Int
    public let store: any ParleyStore
    public let directory: URL
    public let demo: DemoSetup
    /// The server itself, for tests that reach inside (`@testable import ParleyServer`).
    public let parley: ParleyServer
    public let adminToken = "test-operator-token"
    /// The certificate served (HTTPS and `wss:`), or nil for plain HTTP and `ws:`.
    public let tls: TestCertificate?
    private let task: Task<Void, any Error>
    private let group: ServiceGroup

    public var baseURL: URL { URL(string: "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)")! }
    public var realtimeURL: String { "\(tls == nil ? "ws" : "wss")://127.0.0.1:\(port)/v1/realtime" }
    public var appID: AppID { demo.app.app.id }

    /// The store as SQLite, when it is (the default).
    public var sqlite: SQLiteStore? { store as? SQLiteStore }

    private init(
        port: Int, store: any ParleyStore, directory: URL, demo: DemoSetup, parley: ParleyServer, tls: TestCertificate?, task: Task<Void, any Error>,
        group: ServiceGroup
    ) {
        self.port = port
        self.tls = tls
        self.parley = parley
        self.store = store
        self.directory = directory
        self.demo = demo
        self.task = task
        self.group = group
    }

    /// Starts a server; `configure` adjusts its configuration (grace time, buffer limits…).
    /// To restart one (same files, same port), pass the stopped server as `restarting`. To run
    /// another node on a shared database, pass its store and the first node as `joining`. To serve
    /// HTTPS and `wss:`, pass a certificate as `tls` (``TestCertificates/server``, or
    /// ``TestCertificates/impostor`` for a server a client must refuse); ``http`` then trusts it. A
    /// `logger` replaces the quiet default for the server and its SQLite store.
    public static func start(
        restarting previous: TestServer? = nil, store given: (any ParleyStore)? = nil, joining peer: TestServer? = nil,
        tls: TestCertificate? = nil, logger givenLogger: Logger? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> TestServer {
        let tls = tls ?? previous?.tls
        let directory = previous?.directory ?? FileManager.default.temporaryDirectory.appendingPathComponent("parley-test-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let metrics = ServerMetrics()
        var storeConfiguration = SQLiteStore.Configuration()
        storeConfiguration.metricsFactory = metrics.factory
        if let givenLogger { storeConfiguration.logger = givenLogger }
        let store: any ParleyStore
        if let given {
            store = given
        } else {
            // Opening migrates, and each migration fsyncs: not on the cooperative pool (BlockingIO).
            let path = directory.appendingPathComponent("parley.sqlite").path
            store = try await BlockingIO.run { [storeConfiguration] in try SQLiteStore(path: path, configuration: storeConfiguration) }
        }
        var configuration = ServerConfiguration(tokenKey: Data(repeating: 7, count: 32))
        configuration.metrics = metrics
        configuration.port = previous?.port ?? 0
        configuration.passwordCost = 4
        configuration.adminToken = "test-operator-token"
        // Every test client is on 127.0.0.1, and many tests make dozens of visitors at once; the
        // tests of the limits turn them on. Auth services and key sets of tests are on loopback.
        configuration.rateLimits = .off
        // No attachment sweep in the background: it would sleep on a test's manual clock, and the
        // tests of the sweep run it by hand.
        configuration.attachmentSweepInterval = nil
        configuration.outbound = .loopbackForTests
        // Webhook secrets are sealed with a fixed test key. The delivery worker polls on the
        // server's clock; it stays off unless a test of webhooks turns it on, so tests that count a
        // manual clock's sleepers see only their own.
        configuration.secretsKey = Data(repeating: 9, count: 32)
        configuration.webhooks.isDeliveryEnabled = false
        configuration.push.isDeliveryEnabled = false
        configuration.tls = tls.map { ServerTLS(certificateChainPEM: $0.certificatePEM, privateKeyPEM: $0.privateKeyPEM) }
        configure(&configuration)
        var logger = givenLogger ?? Logger(label: "parleyd-test")
        if givenLogger == nil {
            logger.logLevel = ProcessInfo.processInfo.environment["PARLEY_TEST_LOG"].flatMap(Logger.Level.init(rawValue:)) ?? .critical
        }
        let server = ParleyServer(configuration: configuration, store: store, logger: logger)
        guard let demo = try await server.administration.bootstrapDemo() ?? previous?.demo ?? peer?.demo else {
            throw TestFailure("expected an empty database")
        }
        let (portStream, portContinuation) = AsyncStream.makeStream(of: Int.self)
        let app = try await server.makeApplication { port in portContinuation.yield(port) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let task = Task { try await group.run() }
        var iterator = portStream.makeAsyncIterator()
        guard let port = await iterator.next() else { throw TestFailure("server did not start") }
        return TestServer(port: port, store: store, directory: directory, demo: demo, parley: server, tls: tls, task: task, group: group)
    }

    /// Stops the server gracefully and deletes its files (unless `keepFiles`, for a restart).
    public func stop(keepFiles: Bool = false) async {
        await group.triggerGracefulShutdown()
        _ = try? await task.value
        // Closing checkpoints the WAL (fsync): not on the cooperative pool either.
        await BlockingIO.run {
            try? await store.close()
            if !keepFiles { try? FileManager.default.removeItem(at: directory) }
        }
    }

    // MARK: Fixtures

    /// A new visitor session for a device.
    public func visitor(_ device: String = "device-\(UUID().uuidString)", name: String? = "Visitor", app: AppID? = nil) async throws -> VisitorSession {
        try await http.post("/v1/visitor/session", VisitorSessionRequest(appID: app ?? appID, deviceID: device, name: name), as: VisitorSession.self)
    }

    /// Logs in the demo agent.
    public func demoAgent() async throws -> AgentSession {
        try await http.post("/v1/agent/login", AgentLoginRequest(email: demo.agent.email, password: demo.password), as: AgentSession.self)
    }

    /// Creates an agent in an app (default: the demo app and queue) and logs them in.
    public func agent(name: String = "Agent", capacity: Int = 3, app: AppID? = nil, queues: [QueueID]? = nil, role: AgentRole = .agent) async throws -> AgentSession {
        let email = "agent-\(UUID().uuidString.prefix(8))@test.parley".lowercased()
        let appID = app ?? appID
        _ = try await http.post(
            "/v1/admin/apps/\(appID)/agents",
            CreateAgentRequest(name: name, email: email, password: "password-123", role: role, queueIDs: queues ?? (app == nil ? [demo.queue.id] : nil), capacity: capacity),
            token: adminToken, as: CreatedAgent.self)
        return try await http.post("/v1/agent/login", AgentLoginRequest(email: email, password: "password-123"), as: AgentSession.self)
    }

    /// Creates another app with one queue.
    public func otherApp() async throws -> (AppCredentials, Queue) {
        let app = try await http.post("/v1/admin/apps", CreateAppRequest(name: "Other"), token: adminToken, as: AppCredentials.self)
        let queue = try await http.post("/v1/admin/apps/\(app.app.id)/queues", QueueRequest(name: "Main"), token: adminToken, as: Queue.self)
        return (app, queue)
    }

    /// An HTTP client for this server (trusting its certificate when it serves TLS).
    public var http: TestHTTP { TestHTTP(baseURL: baseURL, trustAnchorPEM: tls?.trustAnchorPEM) }
}

public struct TestFailure: Error, CustomStringConvertible {
    public var description: String
    public init(_ description: String) { self.description = description }
}

/// Runs a body against a fresh server (serving `tls` when given) and always stops it.
public func withServer<T>(
    tls: TestCertificate? = nil, configure: (inout ServerConfiguration) -> Void = { _ in }, _ body: (TestServer) async throws -> T
) async throws -> T {
    let server = try await TestServer.start(tls: tls, configure: configure)
    do {
        let value = try await body(server)
        await server.stop()
        return value
    } catch {
        await server.stop()
        throw error
    }
}
