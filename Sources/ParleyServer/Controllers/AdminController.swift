import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// `/v1/admin/…`: the operator token manages every app; an admin agent manages its own app. Apps,
/// queues, agents and canned responses here; forms, appearance, hours, identity and masking in
/// `+Settings.swift`.
struct AdminController {
    let admin: AdminService
    let settings: AppSettings
    let identity: IdentityService
    let masking: MaskingService
    let store: any ParleyStore
    /// Where a new tag list is told to the app's agents, here and on the other nodes.
    let hub: Hub
    let nodes: NodeLink

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.admin.apps) { _, context in
            switch try context.requireCaller() {
            case .operator:
                return JSONResponse(AppList(apps: try await store.apps()))
            case .agent(let agent) where agent.role == .admin:
                return JSONResponse(AppList(apps: try await store.app(agent.appID).map { [$0.app] } ?? []))
            default:
                throw APIError.forbidden("admins only")
            }
        }

        router.on(.admin.createApp) { request, context in
            try context.requireOperator(else: .forbidden("creating apps needs the operator token"))
            let body = try await request.decodeJSON(CreateAppRequest.self, context: context)
            return JSONResponse(try await admin.createApp(name: body.name), status: .created)
        }

        router.on(.admin.app) { _, context in
            let app = try await administeredApp(context)
            guard let stored = try await store.app(app) else { throw APIError.notFound("app not found") }
            return JSONResponse(stored.app)
        }

        router.on(.admin.renameApp) { request, context in
            let app = try await administeredApp(context)
            let body = try await request.decodeJSON(CreateAppRequest.self, context: context)
            return JSONResponse(try await admin.renameApp(app, name: body.name))
        }

        router.on(.admin.rotateKey) { _, context in
            let app = try await administeredApp(context)
            return JSONResponse(try await admin.rotateKey(app: app))
        }

        router.on(.admin.queues) { _, context in
            let app = try await administeredApp(context)
            return JSONResponse(QueueList(queues: try await store.queues(app: app)))
        }

        router.on(.admin.createQueue) { request, context in
            let app = try await administeredApp(context)
            let body = try await request.decodeJSON(QueueRequest.self, context: context)
            return JSONResponse(try await admin.createQueue(app: app, name: body.name), status: .created)
        }

        router.on(.admin.renameQueue) { request, context in
            let app = try await administeredApp(context)
            let queue: QueueID = try context.identifier("queue", notFound: "queue not found")
            let body = try await request.decodeJSON(QueueRequest.self, context: context)
            return JSONResponse(try await admin.renameQueue(queue, app: app, name: body.name))
        }

        router.on(.admin.ratings) { _, context in
            let app = try await administeredApp(context)
            return JSONResponse(try await admin.ratingSummary(app: app))
        }

        addAgentRoutes(to: router)
        addCannedResponseRoutes(to: router)
        addSettingsRoutes(to: router)
    }

    private func addAgentRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.admin.agents) { _, context in
            let app = try await administeredApp(context)
            return JSONResponse(AgentList(agents: try await store.agents(app: app)))
        }

        router.on(.admin.createAgent) { request, context in
            let app = try await administeredApp(context)
            let body = try await request.decodeJSON(CreateAgentRequest.self, context: context)
            return JSONResponse(try await admin.createAgent(app: app, body), status: .created)
        }

        router.on(.admin.agent) { _, context in
            let app = try await administeredApp(context)
            guard let id = context.parameters.get("agent").flatMap(AgentID.init(validating:)),
                  let agent = try await store.agent(id)?.agent, agent.appID == app
            else { throw APIError.notFound("agent not found") }
            return JSONResponse(agent)
        }

        router.on(.admin.updateAgent) { request, context in
            let app = try await administeredApp(context)
            let id: AgentID = try context.identifier("agent", notFound: "agent not found")
            let body = try await request.decodeJSON(UpdateAgentRequest.self, context: context)
            return JSONResponse(try await admin.updateAgent(id, app: app, body))
        }

        router.on(.admin.resetPassword) { _, context in
            let app = try await administeredApp(context)
            let id: AgentID = try context.identifier("agent", notFound: "agent not found")
            return JSONResponse(try await admin.resetPassword(id, app: app))
        }
    }

    private func addCannedResponseRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.admin.cannedResponses) { _, context in
            let app = try await administeredApp(context)
            return JSONResponse(CannedResponseList(cannedResponses: try await store.cannedResponses(app: app, owner: nil)))
        }

        router.on(.admin.createCannedResponse) { request, context in
            let app = try await administeredApp(context)
            let body = try await request.decodeJSON(CannedResponseRequest.self, context: context)
            return JSONResponse(try await admin.createCannedResponse(app: app, body), status: .created)
        }

        router.on(.admin.updateCannedResponse) { request, context in
            let app = try await administeredApp(context)
            let id: CannedResponseID = try context.identifier("response", notFound: "canned response not found")
            let body = try await request.decodeJSON(CannedResponseRequest.self, context: context)
            return JSONResponse(try await admin.updateCannedResponse(id, app: app, body))
        }

        router.on(.admin.deleteCannedResponse) { _, context in
            let app = try await administeredApp(context)
            try await admin.deleteCannedResponse(try context.identifier("response", notFound: "canned response not found"), app: app)
            return Response(status: .noContent)
        }
    }

    /// The `:app` of an admin route, when the caller administers it (``ParleyRequestContext/administeredApp(in:)``).
    func administeredApp(_ context: ParleyRequestContext) async throws -> AppID {
        try await context.administeredApp(in: store)
    }
}

extension ParleyRequestContext {
    /// The `:app` of an admin route, when the caller administers it. Another app is a 404, as if
    /// it did not exist; a plain agent of this app is a 403.
    func administeredApp(in store: any ParleyStore) async throws -> AppID {
        let caller = try requireCaller()
        let app: AppID = try identifier("app", notFound: "app not found")
        switch caller {
        case .operator:
            guard try await store.app(app) != nil else { throw APIError.notFound("app not found") }
            return app
        case .agent(let agent) where agent.appID == app:
            guard agent.role == .admin else { throw APIError.forbidden("admins only") }
            return app
        default:
            throw APIError.notFound("app not found")
        }
    }

    /// The `:app` and `:queue` of an admin route, when the caller administers the app and the
    /// queue is one of its own (404 otherwise).
    func administeredQueue(in store: any ParleyStore) async throws -> (AppID, QueueID) {
        let app = try await administeredApp(in: store)
        guard let queue = parameters.get("queue").flatMap(QueueID.init(validating:)),
              try await store.queues(app: app).contains(where: { $0.id == queue })
        else { throw APIError.notFound("queue not found") }
        return (app, queue)
    }
}
