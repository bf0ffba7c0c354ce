import Foundation
import Hummingbird
import Logging
import ParleyCore
import ParleyStore

extension ParleyServer {
    func addSessionRoutes(to router: Router<ParleyRequestContext>) {
        let v1 = router.group("v1")

        // A visitor session: the same app and device id is the same visitor, with the same history.
        v1.post("visitor/session") { request, context in
            let body = try await request.decodeJSON(VisitorSessionRequest.self, context: context)
            try Validation.deviceID(body.deviceID)
            if let name = body.name { try Validation.shortText(name, field: "name", maxLength: 100) }
            if let email = body.email { try Validation.email(email) }
            try Validation.attributes(body.attributes ?? [:])
            guard try await self.store.app(body.appID) != nil else { throw APIError.notFound("app not found") }
            let now = self.configuration.clock.now()
            let visitor = try await self.store.upsertVisitor(
                app: body.appID, deviceID: body.deviceID,
                profile: VisitorProfile(name: body.name, email: body.email, attributes: body.attributes), at: now)
            let (token, expiresAt) = self.visitorTokens.issue(app: visitor.appID, visitor: visitor.id, name: visitor.name, now: now)
            return JSONResponse(VisitorSession(token: token, expiresAt: expiresAt, visitor: visitor))
        }

        v1.post("agent/login") { request, context in
            let body = try await request.decodeJSON(AgentLoginRequest.self, context: context)
            let session = try await self.logIn(body, context: context)
            return JSONResponse(session)
        }

        v1.post("agent/logout") { request, _ in
            try await self.logOut(try await self.agentCaller(request))
            return Response(status: .noContent)
        }

        v1.get("agent/me") { request, _ in
            let caller = try await self.agentCaller(request)
            guard let agent = try await self.store.agent(caller.agentID)?.agent else { throw APIError.unauthorized() }
            return JSONResponse(agent)
        }

        v1.put("agent/availability") { request, context in
            let caller = try await self.agentCaller(request)
            let body = try await request.decodeJSON(AvailabilityRequest.self, context: context)
            guard var agent = try await self.store.agent(caller.agentID)?.agent else { throw APIError.unauthorized() }
            agent.availability = body.availability
            try await self.store.updateAgent(agent, passwordHash: nil)
            await self.routing.agentUpdated(agent)
            await self.nodes.announce(.agentChanged(agent.id, sessionsEnded: false))
            return JSONResponse(agent)
        }
    }

    /// Checks an agent's email and password and opens a session. Throws 401, the same for an unknown
    /// email, a wrong password and a disabled account, with the same timing.
    func logIn(_ body: AgentLoginRequest, context: ParleyRequestContext) async throws -> AgentSession {
        let refusal = APIError.unauthorized("wrong email or password")
        guard let stored = try await store.agent(email: body.email.lowercased()) else {
            _ = try await hasher.verify(body.password, hash: decoyHash)
            throw refusal
        }
        guard try await hasher.verify(body.password, hash: stored.passwordHash), !stored.agent.isDisabled else { throw refusal }
        let now = self.configuration.clock.now()
        let token = OpaqueTokens.make(prefix: "pa1")
        let expiresAt = now.addingTimeInterval(configuration.agentSessionLifetime)
        try await store.insertSession(AgentSessionRecord(
            tokenHash: OpaqueTokens.hash(token), agentID: stored.agent.id, appID: stored.agent.appID, createdAt: now, expiresAt: expiresAt))
        context.logger.info("agent logged in", metadata: ["parley.agent": "\(stored.agent.id)"])
        return AgentSession(token: token, expiresAt: expiresAt, agent: stored.agent)
    }

    /// Ends an agent's session and closes the sockets opened with it.
    func logOut(_ agent: AgentCaller) async throws {
        try await store.deleteSession(tokenHash: agent.tokenHash)
        hub.revoke(session: agent.tokenHash, agent: agent.agentID, reason: "logged out")
        await nodes.announce(.sessionEnded(agent.agentID, tokenHash: agent.tokenHash))
    }

    /// The caller, who must be an agent (or admin) of some app.
    func agentCaller(_ request: Request) async throws -> AgentCaller {
        guard case .agent(let agent) = try await authenticator.caller(of: request) else {
            throw APIError.forbidden("this route is for agents")
        }
        return agent
    }
}
