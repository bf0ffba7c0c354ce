import Hummingbird
import ParleyCore
import ParleyStore

/// The logged-in agent's own account: who they are, and their availability.
struct AgentController {
    let store: any ParleyStore
    let routing: RoutingEngine
    let nodes: NodeLink

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.agent.me) { _, context in
            let caller = try context.requireAgent()
            guard let agent = try await store.agent(caller.agentID)?.agent else { throw APIError.unauthorized() }
            return JSONResponse(agent)
        }

        router.on(.agent.setAvailability) { request, context in
            let caller = try context.requireAgent()
            let body = try await request.decodeJSON(AvailabilityRequest.self, context: context)
            guard var agent = try await store.agent(caller.agentID)?.agent else { throw APIError.unauthorized() }
            agent.availability = body.availability
            try await store.updateAgent(agent, passwordHash: nil)
            // Routing on this node and on the others learns at once whether to offer chats.
            await routing.agentUpdated(agent)
            await nodes.announce(.agentChanged(agent.id, sessionsEnded: false))
            return JSONResponse(agent)
        }
    }
}
