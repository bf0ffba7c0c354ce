import Foundation
import Hummingbird
import HummingbirdWebSocket
import Logging
import NIOCore
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// The server: everything parleyd serves, over a store. ``buildApplication(_:store:logger:onServerRunning:)``
/// is the front door; tests call it with port 0 and a temporary database.
public struct ParleyServer: Sendable {
    public let configuration: ServerConfiguration
    let store: any ParleyStore
    let hub: Hub
    let routing: RoutingEngine
    /// The one way a conversation changes: commit, publish, routing (``ConversationCommitter``).
    let committer: ConversationCommitter
    /// What this node tells the other nodes on the same database (nothing when alone).
    let nodes: NodeLink
    let conversations: ConversationService
    let attachments: AttachmentService
    /// Appearance and business hours, as the app's admins set them.
    let settings: AppSettings
    let availability: AvailabilityService
    /// Callback requests and their dialogs (decision 0019).
    let callbacks: CallbackService
    let admin: AdminService
    let authenticator: Authenticator
    let visitorTokens: VisitorTokens
    let browserSessions: BrowserSessions
    let agentSessions: AgentSessions
    let deskAssets: StaticFiles
    let chatAssets: StaticFiles
    let outbound: OutboundClient
    /// Apps' webhook endpoints, and the worker's wake-up and app list.
    let webhooks: WebhookService
    let webhookApps: KnownApps
    /// Apps' push providers, the apps that have one, and the providers' cached tokens.
    let push: PushService
    let pushApps: KnownApps
    let providerTokens: ProviderTokens
    let outboxBell: OutboxBell
    let secretBox: SecretBox?
    let identity: IdentityService
    /// Each app's masking rules, applied to every text before it is stored.
    let masking: MaskingService
    let limits: RequestLimits
    let logger: Logger

    /// Assembles the server's parts over a store.
    public init(configuration: ServerConfiguration, store: any ParleyStore, logger: Logger) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        hub = Hub()
        let feedback = RoutingFeedback()
        let clock = configuration.clock
        webhookApps = KnownApps()
        pushApps = KnownApps()
        outboxBell = OutboxBell()
        let rules: [any CommitEffects] = [
            WebhookRule(apps: webhookApps), PushRule(apps: pushApps, delay: configuration.push.delay), configuration.commitEffects,
        ]
        committer = ConversationCommitter(
            store: store, hub: hub, routing: feedback, effects: CombinedCommitEffects(rules),
            bell: outboxBell, metrics: configuration.metrics, logger: logger)
        routing = RoutingEngine(
            store: store, hub: hub, committer: committer, clock: clock, graceDuration: configuration.offlineGrace, logger: logger)
        feedback.connect(routing)
        nodes = NodeLink(store: store, logger: logger)
        settings = AppSettings(store: store, clock: clock)
        masking = MaskingService(store: store, nodes: nodes, clock: clock, metrics: configuration.metrics)
        limits = RequestLimits(limits: configuration.rateLimits, proxies: configuration.trustedProxies, clock: clock)
        conversations = ConversationService(
            store: store, hub: hub, routing: routing, committer: committer, clock: clock, nodes: nodes, settings: settings, masking: masking,
            limits: limits, logger: logger)
        attachments = AttachmentService(
            store: store, conversations: conversations, scanner: configuration.malwareScanner, serverLimit: configuration.maxAttachmentBytes,
            clock: clock, logger: logger)
        callbacks = CallbackService(conversations: conversations, committer: committer, settings: settings, clock: clock, logger: logger)
        availability = AvailabilityService(store: store, settings: settings, routing: routing, clock: clock)
        let hasher = PasswordHasher(cost: configuration.passwordCost)
        admin = AdminService(store: store, hasher: hasher, clock: clock) { [routing, hub, nodes] agent, sessionsEnded in
            if sessionsEnded { hub.revoke(agent: agent.id, reason: agent.isDisabled ? "account disabled" : "password changed") }
            await routing.agentUpdated(agent)
            await nodes.announce(.agentChanged(agent.id, sessionsEnded: sessionsEnded))
        }
        visitorTokens = VisitorTokens(key: configuration.tokenKey, lifetime: configuration.visitorTokenLifetime)
        // Served over TLS, every request is HTTPS: the cookie is Secure unless the operator says otherwise.
        browserSessions = BrowserSessions(
            tokenKey: configuration.tokenKey, secureCookies: configuration.secureCookies ?? (configuration.tls != nil ? true : nil))
        deskAssets = StaticFiles(resource: "Desk", developmentFolder: configuration.deskDirectory, isCompressed: true)
        chatAssets = StaticFiles(resource: "Chat", developmentFolder: configuration.chatDirectory, isCompressed: true)
        authenticator = Authenticator(
            store: store, visitorTokens: visitorTokens, adminToken: configuration.adminToken, browserSessions: browserSessions, clock: clock)
        agentSessions = AgentSessions(
            store: store, hasher: hasher, hub: hub, nodes: nodes, clock: clock, lifetime: configuration.agentSessionLifetime, limits: limits)
        outbound = OutboundClient(policy: configuration.outbound, trustRootsFile: configuration.outboundTrustRootsFile)
        secretBox = configuration.secretsKey.flatMap { try? SecretBox(key: $0) }
        push = PushService(store: store, secrets: secretBox, policy: configuration.outbound, apps: pushApps, clock: clock)
        providerTokens = ProviderTokens(clock: clock)
        webhooks = WebhookService(
            store: store, secrets: secretBox, policy: configuration.outbound, configuration: configuration.webhooks, bell: outboxBell,
            apps: webhookApps, clock: clock)
        identity = IdentityService(
            store: store, tokens: UserTokenVerifier(outbound: outbound, clock: clock), authService: AuthServiceVerifier(outbound: outbound, clock: clock),
            masking: masking, routing: routing, clock: clock)
    }

    /// The attachment sweep (retention, leftover bytes), one per node.
    var attachmentJanitor: AttachmentJanitor {
        AttachmentJanitor(store: store, attachments: attachments, interval: configuration.attachmentSweepInterval ?? 3_600, graceTime: 3_600,
                          clock: configuration.clock, logger: logger)
    }

    /// The webhook worker, one per node.
    var webhookDeliverer: WebhookDeliverer {
        WebhookDeliverer(store: store, outbound: outbound, secrets: secretBox, configuration: configuration.webhooks, bell: outboxBell,
                         apps: webhookApps, clock: configuration.clock, logger: logger)
    }

    /// The push worker, one per node.
    var pushDeliverer: PushDeliverer {
        PushDeliverer(store: store, outbound: outbound, secrets: secretBox, configuration: configuration.push, bell: outboxBell, apps: pushApps,
                      tokens: providerTokens, clock: configuration.clock, logger: logger)
    }

    /// The administration service (used by `parleyd admin` and the first-start demo).
    public var administration: AdminService { admin }

    /// Builds the Hummingbird application: loads routing state, then serves HTTP and `/v1/realtime`.
    /// - Parameter onServerRunning: called with the bound port once the server listens.
    /// - Throws: ``ServerTLS/Invalid`` when ``ServerConfiguration/tls`` cannot be served; the store's errors.
    public func makeApplication(onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }) async throws -> some ApplicationProtocol {
        // A certificate that cannot be served fails here, before anything starts.
        let tls = try configuration.tls?.makeTLSConfiguration()
        try await routing.start()

        let router = Router(context: ParleyRequestContext.self)
        router.add(middleware: ErrorMiddleware())
        addRoutes(to: router)
        let socketRouter = Router(context: ParleyRequestContext.self)
        addSocketRoutes(to: socketRouter)

        // With a database several nodes share, the other nodes' commits reach this node's sockets
        // and routing, and the nodes share their agents' connections.
        let hub = self.hub
        await routing.onTeamChanged { app, agent in hub.publishTeamChange(agent, app: app) }
        var nodeServices: [any Service] = []
        if let source = nodes.source {
            let (changes, continuation) = AsyncStream.makeStream(of: AgentID.self)
            await routing.onLocalPresenceChanged { continuation.yield($0) }
            nodeServices = [
                NodeFanOut(source: source, store: store, hub: hub, routing: routing, masking: masking, metrics: configuration.metrics, clock: configuration.clock,
                           staleAfter: configuration.nodeTimeout, logger: logger),
                NodePresence(source: source, hub: hub, routing: routing, changes: changes, interval: configuration.nodeHeartbeat,
                             staleAfter: configuration.nodeTimeout, logger: logger),
            ]
        }

        let janitorServices: [any Service] = configuration.attachmentSweepInterval == nil ? [] : [attachmentJanitor]
        // Commits made before the first poll already know which apps have endpoints.
        webhookApps.add(try await store.webhookApps())
        pushApps.add(try await store.pushApps())
        let webhookServices: [any Service] = (configuration.webhooks.isDeliveryEnabled ? [webhookDeliverer] : [])
            + (configuration.push.isDeliveryEnabled ? [pushDeliverer] : [])
        let mailServices: [any Service] = configuration.smtp.map { smtp in
            [Mailer(store: store, smtp: smtp, retryDelays: configuration.mailRetryDelays, pollInterval: configuration.mailPollInterval,
                    clock: configuration.clock, logger: logger)]
        } ?? []

        return Application(
            router: router,
            server: try makeServerBuilder(socketRouter: socketRouter, tls: tls),
            configuration: .init(address: .hostname(configuration.host, port: configuration.port), serverName: "parleyd"),
            services: [RoutingService(routing: routing), OutboundService(client: outbound)] + janitorServices + nodeServices + mailServices
                + webhookServices,
            onServerRunning: { channel in await onServerRunning(channel.localAddress?.port ?? 0) },
            logger: logger)
    }
}

/// Builds parleyd's application over a store: the library's front door.
public func buildApplication(
    _ configuration: ServerConfiguration, store: any ParleyStore, logger: Logger,
    onServerRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) async throws -> some ApplicationProtocol {
    try await ParleyServer(configuration: configuration, store: store, logger: logger).makeApplication(onServerRunning: onServerRunning)
}

/// Closes the outbound client's connections when the server shuts down.
struct OutboundService: Service {
    let client: OutboundClient

    func run() async throws {
        try? await gracefulShutdown()
        try? await client.shutdown()
    }
}

/// Stops routing's timers when the server shuts down.
struct RoutingService: Service {
    let routing: RoutingEngine

    func run() async throws {
        try? await gracefulShutdown()
        await routing.stop()
    }
}
