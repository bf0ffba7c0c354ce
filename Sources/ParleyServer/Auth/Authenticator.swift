import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// Turns the bearer token of a request into a ``Caller``, failing closed. ``CallerMiddleware`` asks it
/// once per request; routes read the answer from the request context.
struct Authenticator: Sendable {
    let store: any ParleyStore
    let visitorTokens: VisitorTokens
    let adminToken: String?
    let browserSessions: BrowserSessions
    let clock: any WallClock

    /// Where a request's token came from.
    enum Credential: Hashable {
        /// `Authorization: Bearer …` or `?access_token=`: the client chose to send it.
        case bearer(String)
        /// The desk's session cookie: the browser sends it by itself, so it needs CSRF and origin checks.
        case cookie(String)
    }

    /// The token from `Authorization: Bearer …`, from `?access_token=` (browsers cannot set headers on
    /// a WebSocket), or from the desk's session cookie, in that order. A non-Bearer `Authorization`
    /// header yields nothing, whatever else the request carries.
    static func credential(of request: Request) -> Credential? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return .bearer(String(parts[1])) }
            return nil
        }
        if let token = request.uri.queryParameters.get("access_token") { return .bearer(token) }
        return BrowserSessions.cookieToken(of: request).map(Credential.cookie)
    }

    /// The caller of a request. Throws 401 when the token is missing, malformed, forged, expired or
    /// revoked, and 403 when a session cookie comes without the desk's CSRF token or from another origin.
    /// - Parameter isUpgrade: the request opens a WebSocket.
    func caller(of request: Request, isUpgrade: Bool = false) async throws -> Caller {
        switch Self.credential(of: request) {
        case nil:
            throw APIError.unauthorized()
        case .bearer(let token):
            return try await caller(token: token)
        case .cookie(let token):
            // Only agent sessions are ever put in the cookie; anything else there is forged.
            guard token.hasPrefix("pa1.") else { throw APIError.unauthorized() }
            let caller = try await caller(token: token)
            try browserSessions.check(request, sessionToken: token, isUpgrade: isUpgrade)
            return caller
        }
    }

    func caller(token: String) async throws -> Caller {
        let now = clock.now()
        if token.hasPrefix("pv1.") {
            guard var visitor = visitorTokens.verify(token, now: now) else {
                throw APIError.unauthorized("the visitor token is invalid or expired")
            }
            visitor.tokenHash = OpaqueTokens.hash(token)
            // Signed tokens are checked without the store, except for this one read: sign-out.
            if try await store.isVisitorTokenRevoked(hash: visitor.tokenHash) {
                throw APIError.unauthorized("the visitor signed out")
            }
            return .visitor(visitor)
        }
        if token.hasPrefix("pa1.") {
            let hash = OpaqueTokens.hash(token)
            guard let session = try await store.session(tokenHash: hash), session.expiresAt > now,
                  let stored = try await store.agent(session.agentID), !stored.agent.isDisabled
            else { throw APIError.unauthorized("the agent session is invalid, expired or revoked") }
            return .agent(AgentCaller(appID: stored.agent.appID, agentID: stored.agent.id, name: stored.agent.name,
                                      role: stored.agent.role, tokenHash: hash, expiresAt: session.expiresAt))
        }
        if let adminToken, !adminToken.isEmpty, OpaqueTokens.constantTimeEquals(token, adminToken) {
            return .operator
        }
        throw APIError.unauthorized()
    }
}
