import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// Turns the bearer token of a request into a ``Caller``, failing closed.
struct Authenticator: Sendable {
    let store: any ParleyStore
    let visitorTokens: VisitorTokens
    let adminToken: String?

    /// The token from `Authorization: Bearer …`, or from `?access_token=` (browsers cannot set
    /// headers on a WebSocket).
    static func token(of request: Request) -> String? {
        if let header = request.headers[.authorization] {
            let parts = header.split(separator: " ", maxSplits: 1)
            if parts.count == 2, parts[0].lowercased() == "bearer" { return String(parts[1]) }
            return nil
        }
        return request.uri.queryParameters.get("access_token")
    }

    /// The caller of a request. Throws 401 when the token is missing, malformed, forged, expired or revoked.
    func caller(of request: Request, now: Date = Date()) async throws -> Caller {
        guard let token = Self.token(of: request) else { throw APIError.unauthorized() }
        return try await caller(token: token, now: now)
    }

    func caller(token: String, now: Date = Date()) async throws -> Caller {
        if token.hasPrefix("pv1.") {
            guard let visitor = visitorTokens.verify(token, now: now) else {
                throw APIError.unauthorized("the visitor token is invalid or expired")
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
