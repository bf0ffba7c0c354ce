import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore

/// The rate limits as the routes and services apply them: one limiter and one login throttle per
/// server, the configured limits, and who the client is (its address, behind trusted proxies).
struct RequestLimits: Sendable {
    let limits: RateLimits
    let proxies: TrustedProxies
    let limiter: RateLimiter
    let logins: LoginThrottle

    init(limits: RateLimits, proxies: TrustedProxies, clock: any WallClock) {
        self.limits = limits
        self.proxies = proxies
        limiter = RateLimiter(clock: clock)
        logins = LoginThrottle(clock: clock)
    }

    /// The client's address: the socket's peer, or what a trusted proxy forwarded.
    func clientAddress(_ request: Request, context: ParleyRequestContext) -> String {
        let peer = context.channel.remoteAddress?.ipAddress ?? "unknown"
        return proxies.client(peer: peer, forwardedFor: request.headers[HTTPField.Name("X-Forwarded-For")!])
    }

    /// Takes one from `key`'s bucket.
    /// - Throws: 429 `too_many_requests` with `Retry-After` when it is empty; nothing is changed.
    func take(_ key: String, _ limit: RateLimit, what: String) throws {
        guard limits.isEnabled else { return }
        if case .limited(let seconds) = limiter.take(key, limit: limit) {
            throw APIError.tooManyRequests("too many \(what); try again in \(seconds) s", retryAfter: seconds)
        }
    }

    /// A visitor session from `address` into `app`.
    func visitorSession(from address: String, app: AppID) throws {
        try take("session/address/\(address)", limits.sessionsPerAddress, what: "visitor sessions from this address")
        try take("session/app/\(app.rawValue)", limits.sessionsPerApp, what: "visitor sessions for this app")
    }

    /// A message sent by a visitor (HTTP and realtime alike). On the hot path: with the limits off,
    /// not even the key is built.
    func message(from visitor: VisitorID) throws {
        guard limits.isEnabled else { return }
        try take("send/visitor/\(visitor.rawValue)", limits.messagesPerVisitor, what: "messages")
    }

    /// The keys a login is throttled by: the account and the address.
    func loginKeys(email: String, address: String) -> [String] {
        ["login/account/\(email.lowercased())", "login/address/\(address)"]
    }

    /// A login attempt: the address's rate, then the wait earned by wrong passwords.
    func login(email: String, address: String) throws {
        try take("login/address/\(address)", limits.loginsPerAddress, what: "login attempts from this address")
        guard limits.isEnabled else { return }
        let wait = logins.wait(for: loginKeys(email: email, address: address))
        if wait > 0 {
            throw APIError.tooManyRequests("too many wrong passwords; try again in \(wait) s", retryAfter: wait)
        }
    }
}
