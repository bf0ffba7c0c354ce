import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

extension ParleyServer {
    /// `/v1/admin/…`: the operator token manages every app; an admin agent manages its own app.
    func addAdminRoutes(to router: Router<ParleyRequestContext>) {
        let admin = router.group("v1/admin")

        admin.get("apps") { request, _ in
            switch try await self.authenticator.caller(of: request) {
            case .operator:
                return JSONResponse(AppList(apps: try await self.store.apps()))
            case .agent(let agent) where agent.role == .admin:
                return JSONResponse(AppList(apps: try await self.store.app(agent.appID).map { [$0.app] } ?? []))
            default:
                throw APIError.forbidden("admins only")
            }
        }

        admin.post("apps") { request, context in
            guard case .operator = try await self.authenticator.caller(of: request) else {
                throw APIError.forbidden("creating apps needs the operator token")
            }
            let body = try await request.decodeJSON(CreateAppRequest.self, context: context)
            return JSONResponse(try await self.admin.createApp(name: body.name), status: .created)
        }

        admin.get("apps/:app") { request, context in
            let app = try await self.administeredApp(request, context)
            guard let stored = try await self.store.app(app) else { throw APIError.notFound("app not found") }
            return JSONResponse(stored.app)
        }

        admin.patch("apps/:app") { request, context in
            let app = try await self.administeredApp(request, context)
            let body = try await request.decodeJSON(CreateAppRequest.self, context: context)
            return JSONResponse(try await self.admin.renameApp(app, name: body.name))
        }

        admin.post("apps/:app/rotate-key") { request, context in
            let app = try await self.administeredApp(request, context)
            return JSONResponse(try await self.admin.rotateKey(app: app))
        }

        admin.get("apps/:app/queues") { request, context in
            let app = try await self.administeredApp(request, context)
            return JSONResponse(QueueList(queues: try await self.store.queues(app: app)))
        }

        admin.post("apps/:app/queues") { request, context in
            let app = try await self.administeredApp(request, context)
            let body = try await request.decodeJSON(QueueRequest.self, context: context)
            return JSONResponse(try await self.admin.createQueue(app: app, name: body.name), status: .created)
        }

        admin.patch("apps/:app/queues/:queue") { request, context in
            let app = try await self.administeredApp(request, context)
            guard let queue = context.parameters.get("queue").flatMap(QueueID.init(validating:)) else { throw APIError.notFound("queue not found") }
            let body = try await request.decodeJSON(QueueRequest.self, context: context)
            return JSONResponse(try await self.admin.renameQueue(queue, app: app, name: body.name))
        }

        admin.get("apps/:app/ratings") { request, context in
            let app = try await self.administeredApp(request, context)
            return JSONResponse(try await self.admin.ratingSummary(app: app))
        }

        admin.get("apps/:app/agents") { request, context in
            let app = try await self.administeredApp(request, context)
            return JSONResponse(AgentList(agents: try await self.store.agents(app: app)))
        }

        admin.post("apps/:app/agents") { request, context in
            let app = try await self.administeredApp(request, context)
            let body = try await request.decodeJSON(CreateAgentRequest.self, context: context)
            return JSONResponse(try await self.admin.createAgent(app: app, body), status: .created)
        }

        admin.get("apps/:app/agents/:agent") { request, context in
            let app = try await self.administeredApp(request, context)
            guard let id = context.parameters.get("agent").flatMap(AgentID.init(validating:)),
                  let agent = try await self.store.agent(id)?.agent, agent.appID == app
            else { throw APIError.notFound("agent not found") }
            return JSONResponse(agent)
        }

        admin.patch("apps/:app/agents/:agent") { request, context in
            let app = try await self.administeredApp(request, context)
            guard let id = context.parameters.get("agent").flatMap(AgentID.init(validating:)) else { throw APIError.notFound("agent not found") }
            let body = try await request.decodeJSON(UpdateAgentRequest.self, context: context)
            return JSONResponse(try await self.admin.updateAgent(id, app: app, body))
        }

        admin.post("apps/:app/agents/:agent/reset-password") { request, context in
            let app = try await self.administeredApp(request, context)
            guard let id = context.parameters.get("agent").flatMap(AgentID.init(validating:)) else { throw APIError.notFound("agent not found") }
            return JSONResponse(try await self.admin.resetPassword(id, app: app))
        }

        admin.get("apps/:app/canned-responses") { request, context in
            let app = try await self.administeredApp(request, context)
            return JSONResponse(CannedResponseList(cannedResponses: try await self.store.cannedResponses(app: app)))
        }

        admin.post("apps/:app/canned-responses") { request, context in
            let app = try await self.administeredApp(request, context)
            let body = try await request.decodeJSON(CannedResponseRequest.self, context: context)
            return JSONResponse(try await self.admin.createCannedResponse(app: app, body), status: .created)
        }

        admin.patch("apps/:app/canned-responses/:response") { request, context in
            let app = try await self.administeredApp(request, context)
            let id = try Self.cannedResponseID(context)
            let body = try await request.decodeJSON(CannedResponseRequest.self, context: context)
            return JSONResponse(try await self.admin.updateCannedResponse(id, app: app, body))
        }

        admin.delete("apps/:app/canned-responses/:response") { request, context in
            let app = try await self.administeredApp(request, context)
            try await self.admin.deleteCannedResponse(try Self.cannedResponseID(context), app: app)
            return Response(status: .noContent)
        }
    }

    private static func cannedResponseID(_ context: ParleyRequestContext) throws -> CannedResponseID {
        guard let id = context.parameters.get("response").flatMap(CannedResponseID.init(validating:)) else {
            throw APIError.notFound("canned response not found")
        }
        return id
    }

    /// The `:app` of an admin route, when the caller administers it. Another app is a 404, as if
    /// it did not exist; a plain agent of this app is a 403.
    func administeredApp(_ request: Request, _ context: ParleyRequestContext) async throws -> AppID {
        let caller = try await authenticator.caller(of: request)
        guard let app = context.parameters.get("app").flatMap(AppID.init(validating:)) else { throw APIError.notFound("app not found") }
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
}
