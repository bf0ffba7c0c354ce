import Foundation
import HummingbirdBcrypt
import Logging
import ParleyCore
import ParleyStore

/// Agent logins and logouts, shared by the bearer-token routes and the desk's cookie routes.
struct AgentSessions: Sendable {
    let store: any ParleyStore
    let hasher: PasswordHasher
    let hub: Hub
    let nodes: NodeLink
    let clock: any WallClock
    /// How long a session lasts.
    let lifetime: TimeInterval
    /// A bcrypt hash of random bytes, checked for unknown emails so a login's timing tells nothing.
    let decoyHash: String
    /// Logins per address, and the growing wait after wrong passwords.
    let limits: RequestLimits

    init(store: any ParleyStore, hasher: PasswordHasher, hub: Hub, nodes: NodeLink, clock: any WallClock, lifetime: TimeInterval,
         limits: RequestLimits) {
        self.limits = limits
        self.store = store
        self.hasher = hasher
        self.hub = hub
        self.nodes = nodes
        self.clock = clock
        self.lifetime = lifetime
        decoyHash = Bcrypt.hash(UUID().uuidString, cost: hasher.cost)
    }

    /// Checks an agent's email and password and opens a session. Throws 401, the same for an unknown
    /// email, a wrong password and a disabled account, with the same timing.
    ///
    /// Throttled per client address, and after wrong passwords per account and address (429 with
    /// `Retry-After`, before the password is even checked): ``LoginThrottle``.
    func logIn(_ body: AgentLoginRequest, from address: String, logger: Logger) async throws -> AgentSession {
        try limits.login(email: body.email, address: address)
        let keys = limits.loginKeys(email: body.email, address: address)
        let refusal = APIError.unauthorized("wrong email or password")
        guard let stored = try await store.agent(email: body.email.lowercased()) else {
            _ = try await hasher.verify(body.password, hash: decoyHash)
            limits.logins.failed(keys)
            throw refusal
        }
        guard try await hasher.verify(body.password, hash: stored.passwordHash), !stored.agent.isDisabled else {
            limits.logins.failed(keys)
            throw refusal
        }
        limits.logins.succeeded(keys)
        let now = clock.now()
        let token = OpaqueTokens.make(prefix: "pa1")
        let expiresAt = now.addingTimeInterval(lifetime)
        try await store.insertSession(AgentSessionRecord(
            tokenHash: OpaqueTokens.hash(token), agentID: stored.agent.id, appID: stored.agent.appID, createdAt: now, expiresAt: expiresAt))
        logger.info("agent logged in", metadata: ["parley.agent": "\(stored.agent.id)"])
        return AgentSession(token: token, expiresAt: expiresAt, agent: stored.agent)
    }

    /// Ends an agent's session and closes the sockets opened with it.
    func logOut(_ agent: AgentCaller) async throws {
        try await store.deleteSession(tokenHash: agent.tokenHash)
        hub.revoke(session: agent.tokenHash, agent: agent.agentID, reason: "logged out")
        await nodes.announce(.sessionEnded(agent.agentID, tokenHash: agent.tokenHash))
    }
}
