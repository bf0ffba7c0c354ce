import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// What every agent of an app may read about it: the team, the canned responses, the visitors;
/// and each agent's own set of canned responses.
struct TeamController {
    let store: any ParleyStore
    let routing: RoutingEngine
    /// Where canned responses are checked and kept (the team's by admins, each agent's own here).
    let admin: AdminService

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.team.overview) { _, context in
            let caller = try context.requireAgent()
            let agents = try await store.agents(app: caller.appID)
            let queues = try await store.queues(app: caller.appID)
            let load = await routing.load(agents: agents.map(\.id), queues: queues.map(\.id))
            return JSONResponse(Team(
                agents: agents.map { agent in
                    Team.Member(
                        id: agent.id, name: agent.name, role: agent.role, availability: agent.availability, capacity: agent.capacity,
                        activeConversations: load.agents[agent.id]?.active ?? 0, connected: (load.agents[agent.id]?.connections ?? 0) > 0,
                        disabled: agent.isDisabled)
                },
                queues: queues.map { Team.QueueLoad(id: $0.id, name: $0.name, waiting: load.waiting[$0.id] ?? 0) }))
        }

        router.on(.team.cannedResponses) { _, context in
            let caller = try context.requireAgent()
            return JSONResponse(CannedResponseList(cannedResponses: try await admin.cannedResponses(for: caller.agentID, app: caller.appID)))
        }
        router.on(.team.createOwnCannedResponse) { request, context in
            let caller = try context.requireAgent()
            let body = try await request.decodeJSON(CannedResponseRequest.self, context: context)
            return JSONResponse(try await admin.createCannedResponse(app: caller.appID, owner: caller.agentID, body), status: .created)
        }
        router.on(.team.updateOwnCannedResponse) { request, context in
            let caller = try context.requireAgent()
            let id: CannedResponseID = try context.identifier("response", notFound: "canned response not found")
            let body = try await request.decodeJSON(CannedResponseRequest.self, context: context)
            return JSONResponse(try await admin.updateCannedResponse(id, app: caller.appID, owner: caller.agentID, body))
        }
        router.on(.team.deleteOwnCannedResponse) { _, context -> Response in
            let caller = try context.requireAgent()
            let id: CannedResponseID = try context.identifier("response", notFound: "canned response not found")
            try await admin.deleteCannedResponse(id, app: caller.appID, owner: caller.agentID)
            return Response(status: .noContent)
        }

        router.on(.team.visitor) { _, context in
            JSONResponse(try await visitorOfApp(context).1)
        }

        // The visitor's conversations, newest activity first: the desk's "earlier conversations".
        router.on(.team.visitorConversations) { request, context in
            let (caller, visitor) = try await visitorOfApp(context)
            let limit = try request.integer("limit", default: 100, range: 1...500)
            let conversations = try await store.conversations(.init(appID: caller.appID, visitorID: visitor.id, limit: limit))
            return JSONResponse(ConversationList(conversations: conversations))
        }
    }

    /// An agent, and a visitor of the agent's app; any other visitor is "not found".
    private func visitorOfApp(_ context: ParleyRequestContext) async throws -> (AgentCaller, Visitor) {
        let caller = try context.requireAgent()
        guard let id = context.parameters.get("visitor").flatMap(VisitorID.init(validating:)),
              let visitor = try await store.visitor(id, app: caller.appID)
        else { throw APIError.notFound("visitor not found") }
        return (caller, visitor)
    }
}
