import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

extension ParleyServer {
    /// What every agent of an app may read about it: the team, the canned responses, the visitors.
    func addTeamRoutes(to router: Router<ParleyRequestContext>) {
        let v1 = router.group("v1")

        v1.get("team") { request, _ in
            let caller = try await self.agentCaller(request)
            let agents = try await self.store.agents(app: caller.appID)
            let queues = try await self.store.queues(app: caller.appID)
            let load = await self.routing.load(agents: agents.map(\.id), queues: queues.map(\.id))
            return JSONResponse(Team(
                agents: agents.map { agent in
                    Team.Member(
                        id: agent.id, name: agent.name, role: agent.role, availability: agent.availability, capacity: agent.capacity,
                        activeConversations: load.agents[agent.id]?.active ?? 0, connected: (load.agents[agent.id]?.connections ?? 0) > 0,
                        disabled: agent.isDisabled)
                },
                queues: queues.map { Team.QueueLoad(id: $0.id, name: $0.name, waiting: load.waiting[$0.id] ?? 0) }))
        }

        v1.get("canned-responses") { request, _ in
            let caller = try await self.agentCaller(request)
            return JSONResponse(CannedResponseList(cannedResponses: try await self.store.cannedResponses(app: caller.appID)))
        }

        v1.get("visitors/:visitor") { request, context in
            JSONResponse(try await self.visitorOfApp(request, context).1)
        }

        // The visitor's conversations, newest activity first: the desk's "earlier conversations".
        v1.get("visitors/:visitor/conversations") { request, context in
            let (caller, visitor) = try await self.visitorOfApp(request, context)
            let limit = try Self.integer(request, "limit", default: 100, range: 1...500)
            let conversations = try await self.store.conversations(.init(appID: caller.appID, visitorID: visitor.id, limit: limit))
            return JSONResponse(ConversationList(conversations: conversations))
        }
    }

    /// An agent, and a visitor of the agent's app; any other visitor is "not found".
    private func visitorOfApp(_ request: Request, _ context: ParleyRequestContext) async throws -> (AgentCaller, Visitor) {
        let caller = try await agentCaller(request)
        guard let id = context.parameters.get("visitor").flatMap(VisitorID.init(validating:)),
              let visitor = try await store.visitor(id, app: caller.appID)
        else { throw APIError.notFound("visitor not found") }
        return (caller, visitor)
    }
}
