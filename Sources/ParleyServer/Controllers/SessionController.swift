import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// Visitor sessions and agent logins with a bearer token (the desk's cookie logins are in
/// ``DeskController``).
struct SessionController {
    let store: any ParleyStore
    let visitorTokens: VisitorTokens
    let sessions: AgentSessions
    let clock: any WallClock

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        // A visitor session: the same app and device id is the same visitor, with the same history.
        router.on(.session.visitor) { request, context in
            let body = try await request.decodeJSON(VisitorSessionRequest.self, context: context)
            try Validation.deviceID(body.deviceID)
            if let name = body.name { try Validation.shortText(name, field: "name", maxLength: 100) }
            if let email = body.email { try Validation.email(email) }
            try Validation.attributes(body.attributes ?? [:])
            guard try await store.app(body.appID) != nil else { throw APIError.notFound("app not found") }
            let now = clock.now()
            let visitor = try await store.upsertVisitor(
                app: body.appID, deviceID: body.deviceID,
                profile: VisitorProfile(name: body.name, email: body.email, attributes: body.attributes), at: now)
            let (token, expiresAt) = visitorTokens.issue(app: visitor.appID, visitor: visitor.id, name: visitor.name, now: now)
            return JSONResponse(VisitorSession(token: token, expiresAt: expiresAt, visitor: visitor))
        }

        router.on(.session.agentLogin) { request, context in
            let body = try await request.decodeJSON(AgentLoginRequest.self, context: context)
            return JSONResponse(try await sessions.logIn(body, logger: context.logger))
        }

        router.on(.session.agentLogout) { _, context in
            try await sessions.logOut(try context.requireAgent())
            return Response(status: .noContent)
        }
    }
}
