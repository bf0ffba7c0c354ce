import Foundation

extension Endpoint {
    /// How a caller gets a token and gives it back: visitor sessions, agent logins, desk cookies.
    public static var session: SessionEndpoints { SessionEndpoints() }
}

/// The session endpoints: the only ones besides health that need no token.
public struct SessionEndpoints: Sendable {
    /// `POST /v1/visitor/session`: a visitor token for an app and a device.
    public var visitor: Endpoint<VisitorSessionRequest, VisitorSession> { .init(.post, "/v1/visitor/session") }
    /// `POST /v1/visitor/logout`: signs the visitor token out; it is refused from then on, and the
    /// sockets opened with it close (204).
    public var visitorLogout: Endpoint<Void, Void> { .init(.post, "/v1/visitor/logout") }
    /// `POST /v1/agent/login`: an agent's bearer token.
    public var agentLogin: Endpoint<AgentLoginRequest, AgentSession> { .init(.post, "/v1/agent/login") }
    /// `POST /v1/agent/logout`: ends the session of the bearer token (204).
    public var agentLogout: Endpoint<Void, Void> { .init(.post, "/v1/agent/logout") }
    /// `POST /v1/desk/login`: the desk's login; the token goes into an HttpOnly cookie.
    public var deskLogin: Endpoint<AgentLoginRequest, DeskSession> { .init(.post, "/v1/desk/login") }
    /// `GET /v1/desk/session`: who the cookie belongs to, or 204 when nobody is logged in.
    public var deskSession: Endpoint<Void, DeskSession> { .init(.get, "/v1/desk/session") }
    /// `POST /v1/desk/logout`: ends the cookie's session and clears the cookie (204).
    public var deskLogout: Endpoint<Void, Void> { .init(.post, "/v1/desk/logout") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] {
        [visitor.erased, visitorLogout.erased, agentLogin.erased, agentLogout.erased, deskLogin.erased, deskSession.erased, deskLogout.erased]
    }
}
