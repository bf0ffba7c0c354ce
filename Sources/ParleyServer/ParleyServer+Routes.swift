import Hummingbird
import HummingbirdWebSocket
import ParleyCore
import ParleyStore

/// The composition of the routes: each controller gets only the services it uses, and every route
/// sits behind the middleware that resolves the caller once (docs/decisions/0010).
extension ParleyServer {
    /// Every HTTP route.
    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        let api = router.group().add(middleware: CallerMiddleware(authenticator: authenticator))
        HealthController(version: configuration.version, probe: { [store] in _ = try await store.appliedMigrations() },
                         timeout: configuration.readinessTimeout, clock: configuration.clock).addRoutes(to: api)
        OpenAPIController(document: .bundled).addRoutes(to: api)
        MetricsController(metrics: configuration.metrics, routing: routing, store: store).addRoutes(to: api)
        SessionController(identity: identity, store: store, hub: hub, nodes: nodes, visitorTokens: visitorTokens, sessions: agentSessions, limits: limits, clock: configuration.clock)
            .addRoutes(to: api)
        AgentController(store: store, routing: routing, nodes: nodes).addRoutes(to: api)
        ConversationController(conversations: conversations, inbox: InboxService(
            store: store, routing: routing, hub: hub, nodes: nodes, settings: settings, clock: configuration.clock)).addRoutes(to: api)
        AttachmentController(attachments: attachments, store: store).addRoutes(to: api)
        PushDeviceController(store: store, push: push, clock: configuration.clock).addRoutes(to: api)
        PushAdminController(push: push, store: store).addRoutes(to: api)
        TranscriptController(conversations: conversations, isMailEnabled: configuration.smtp != nil).addRoutes(to: api)
        LifecycleController(settings: settings, availability: availability, masking: masking, store: store).addRoutes(to: api)
        TeamController(store: store, routing: routing, admin: admin).addRoutes(to: api)
        SearchController(search: SearchService(store: store)).addRoutes(to: api)
        ReportController(reports: ReportService(store: store), store: store, clock: configuration.clock).addRoutes(to: api)
        AdminController(admin: admin, settings: settings, identity: identity, masking: masking, store: store, hub: hub, nodes: nodes).addRoutes(to: api)
        WebhookController(webhooks: webhooks, store: store).addRoutes(to: api)
        CallbackController(callbacks: callbacks, settings: settings, store: store, servesTLS: configuration.tls != nil).addRoutes(to: api)
        DeskController(assets: deskAssets, browserSessions: browserSessions, sessions: agentSessions, limits: limits, store: store,
                       mailEnabled: configuration.smtp != nil).addRoutes(to: api)
        ChatController(assets: chatAssets, settings: settings).addRoutes(to: api)
        realtimeController.addRoutes(to: router.group().add(middleware: upgradeCallerMiddleware))
    }

    /// The WebSocket upgrade of `/v1/realtime`, on the router the upgrade handler asks.
    func addSocketRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        realtimeController.addSocketRoutes(to: router.group().add(middleware: upgradeCallerMiddleware))
    }

    /// The realtime routes resolve the caller as an upgrade: a session cookie must name its origin.
    private var upgradeCallerMiddleware: CallerMiddleware {
        CallerMiddleware(authenticator: authenticator, isUpgrade: true)
    }

    private var realtimeController: RealtimeController {
        RealtimeController { caller, inbound, outbound, context in
            try await RealtimeSession(server: self, caller: caller, channel: context.channel).run(inbound: inbound, outbound: outbound)
        }
    }
}
