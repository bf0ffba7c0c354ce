import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyStore

/// The agent desk: its static files under `/desk/`, and its cookie sessions under `/v1/desk`.
struct DeskController {
    /// Every desk response: no inline script or style, nothing from elsewhere, never framed; it frames
    /// only this server's own pages (the chat page's live preview on the Appearance and Forms pages).
    static let securityHeaders: [(HTTPField.Name, String)] = [
        (.contentSecurityPolicy,
         "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "media-src 'self' data:; font-src 'self'; manifest-src 'self'; frame-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        (HTTPField.Name("X-Content-Type-Options")!, "nosniff"),
        (HTTPField.Name("X-Frame-Options")!, "DENY"),
        (HTTPField.Name("Referrer-Policy")!, "no-referrer"),
        (HTTPField.Name("Cross-Origin-Opener-Policy")!, "same-origin"),
    ]

    let assets: StaticFiles
    let browserSessions: BrowserSessions
    let sessions: AgentSessions
    let limits: RequestLimits
    let store: any ParleyStore
    /// Whether this server sends email (`--smtp`), told to the desk with its session.
    let mailEnabled: Bool

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        // Files, not API: their paths are not in ParleyCore's endpoint table.
        // `/desk` and `/desk/` reach the same route; only the second makes the page's relative URLs right.
        router.get("desk") { request, _ in
            if !request.uri.path.hasSuffix("/") {
                return Response(status: .permanentRedirect, headers: [.location: "/desk/"])
            }
            return try deskFile("index.html", request: request)
        }
        router.get("desk/**") { request, context in
            let path = context.parameters.getCatchAll().joined(separator: "/")
            return try deskFile(path.isEmpty ? "index.html" : path, request: request)
        }

        router.on(.session.deskLogin) { request, context in
            let body = try await request.decodeJSON(AgentLoginRequest.self, context: context)
            let session = try await sessions.logIn(body, from: limits.clientAddress(request, context: context), logger: context.logger)
            let answer = DeskSession(agent: session.agent, expiresAt: session.expiresAt,
                                     csrfToken: browserSessions.csrfToken(for: session.token), mailEnabled: mailEnabled)
            var response = try JSONResponse(answer).response(from: request, context: context)
            response.headers[.setCookie] = browserSessions.setCookie(token: session.token, lifetime: sessions.lifetime, request: request)
            return response
        }

        // A reloaded page learns who is logged in, and its CSRF token, from the cookie. "No session"
        // is an answer, not an error (204, and a stale cookie is cleared), so a fresh login page
        // logs no failed request.
        router.on(.session.deskSession) { request, context in
            let noSession = Response(status: .noContent, headers: [.setCookie: browserSessions.clearCookie(request: request)])
            guard case .cookie(let token) = Authenticator.credential(of: request) else { return noSession }
            let caller: AgentCaller
            do {
                caller = try context.requireAgent()
            } catch let error as APIError where error.status == .unauthorized {
                return noSession
            }
            guard let agent = try await store.agent(caller.agentID)?.agent else { return noSession }
            let session = DeskSession(agent: agent, expiresAt: caller.expiresAt, csrfToken: browserSessions.csrfToken(for: token), mailEnabled: mailEnabled)
            return try JSONResponse(session).response(from: request, context: context)
        }

        router.on(.session.deskLogout) { request, context in
            do {
                try await sessions.logOut(try context.requireAgent())
            } catch let error as APIError where error.status == .unauthorized {
                // The session is already gone; forgetting the cookie is all that is left to do.
            }
            return Response(status: .noContent, headers: [.setCookie: browserSessions.clearCookie(request: request)])
        }
    }

    /// A desk file with the desk's security headers, or 404.
    private func deskFile(_ path: String, request: Request) throws -> Response {
        guard let (file, cacheControl) = assets.file(at: path) else { throw APIError.notFound("no such desk file") }
        var headers = HTTPFields()
        for (name, value) in Self.securityHeaders { headers[name] = value }
        // index.html is revalidated every time, so a new server version never runs with an old
        // script; the files it names carry their version and are cached for good (``StaticFiles``).
        headers[.cacheControl] = cacheControl
        return assets.response(for: file, request: request, headers: headers)
    }
}
