import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// Visitor sessions and agent logins with a bearer token (the desk's cookie logins are in
/// ``DeskController``).
struct SessionController {
    let identity: IdentityService
    let store: any ParleyStore
    let hub: Hub
    let nodes: NodeLink
    let visitorTokens: VisitorTokens
    let sessions: AgentSessions
    let limits: RequestLimits
    let clock: any WallClock

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        // A visitor session: the same app and device id is the same visitor, with the same history;
        // with a proof of identity, the same user on every device (decision 0012).
        router.on(.session.visitor) { request, context in
            let body = try await request.decodeJSON(VisitorSessionRequest.self, context: context)
            try limits.visitorSession(from: limits.clientAddress(request, context: context), app: body.appID)
            let visitor = try await identity.visitor(for: body)
            let (token, expiresAt) = visitorTokens.issue(app: visitor.appID, visitor: visitor.id, name: visitor.name, now: clock.now())
            return JSONResponse(VisitorSession(token: token, expiresAt: expiresAt, visitor: visitor))
        }

        // Sign-out: the token is refused from now on (by every node: the check reads the store), and
        // the sockets opened with it close with 1008, here and on the other nodes.
        router.on(.session.visitorLogout) { _, context -> Response in
            let visitor = try context.requireVisitor(else: .forbidden("only visitors sign out here"))
            try await store.revokeVisitorToken(hash: visitor.tokenHash, expiresAt: visitor.expiresAt, now: clock.now())
            hub.revoke(visitorSession: visitor.tokenHash, visitor: visitor.visitorID, reason: "signed out")
            await nodes.announce(.visitorSessionEnded(visitor.visitorID, tokenHash: visitor.tokenHash))
            return Response(status: .noContent)
        }

        router.on(.session.agentLogin) { request, context in
            let body = try await request.decodeJSON(AgentLoginRequest.self, context: context)
            return JSONResponse(try await sessions.logIn(body, from: limits.clientAddress(request, context: context), logger: context.logger))
        }

        router.on(.session.agentLogout) { _, context in
            try await sessions.logOut(try context.requireAgent())
            return Response(status: .noContent)
        }
    }
}
