import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// Visitor sessions and agent logins with a bearer token (the desk's cookie logins are in
/// ``DeskController``).
struct SessionController {
    let identity: IdentityService
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
