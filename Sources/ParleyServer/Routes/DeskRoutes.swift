import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyStore

extension ParleyServer {
    /// The agent desk: its static files under `/desk/`, and its cookie sessions under `/v1/desk`.
    func addDeskRoutes(to router: Router<ParleyRequestContext>) {
        // `/desk` and `/desk/` reach the same route; only the second makes the page's relative URLs right.
        router.get("desk") { request, _ in
            if !request.uri.path.hasSuffix("/") {
                return Response(status: .permanentRedirect, headers: [.location: "/desk/"])
            }
            return try self.deskFile("index.html", request: request)
        }
        router.get("desk/**") { request, context in
            let path = context.parameters.getCatchAll().joined(separator: "/")
            return try self.deskFile(path.isEmpty ? "index.html" : path, request: request)
        }

        let desk = router.group("v1/desk")

        desk.post("login") { request, context in
            let body = try await request.decodeJSON(AgentLoginRequest.self, context: context)
            let session = try await self.logIn(body, context: context)
            let answer = DeskSession(agent: session.agent, expiresAt: session.expiresAt,
                                     csrfToken: self.browserSessions.csrfToken(for: session.token))
            var response = try JSONResponse(answer).response(from: request, context: context)
            response.headers[.setCookie] = self.browserSessions.setCookie(
                token: session.token, lifetime: self.configuration.agentSessionLifetime, request: request)
            return response
        }

        // A reloaded page learns who is logged in, and its CSRF token, from the cookie. "No session"
        // is an answer, not an error (204, and a stale cookie is cleared), so a fresh login page
        // logs no failed request.
        desk.get("session") { request, context in
            let noSession = Response(status: .noContent, headers: [.setCookie: self.browserSessions.clearCookie(request: request)])
            guard case .cookie(let token) = Authenticator.credential(of: request) else { return noSession }
            let caller: AgentCaller
            do {
                caller = try await self.agentCaller(request)
            } catch let error as APIError where error.status == .unauthorized {
                return noSession
            }
            guard let agent = try await self.store.agent(caller.agentID)?.agent else { return noSession }
            let session = DeskSession(agent: agent, expiresAt: caller.expiresAt, csrfToken: self.browserSessions.csrfToken(for: token))
            return try JSONResponse(session).response(from: request, context: context)
        }

        desk.post("logout") { request, _ in
            do {
                try await self.logOut(try await self.agentCaller(request))
            } catch let error as APIError where error.status == .unauthorized {
                // The session is already gone; forgetting the cookie is all that is left to do.
            }
            return Response(status: .noContent, headers: [.setCookie: self.browserSessions.clearCookie(request: request)])
        }
    }

    /// A desk file with the desk's security headers, or 404.
    private func deskFile(_ path: String, request: Request) throws -> Response {
        guard let file = deskAssets.file(at: path) else { throw APIError.notFound("no such desk file") }
        var headers = HTTPFields()
        for (name, value) in DeskAssets.securityHeaders { headers[name] = value }
        headers[.eTag] = file.etag
        // Revalidate every time: a new server version must never run with a cached old script.
        headers[.cacheControl] = "no-cache"
        if request.headers[.ifNoneMatch] == file.etag {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = file.contentType
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.body))
    }
}
