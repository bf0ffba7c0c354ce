import Foundation

extension Endpoint {
    /// `/v1/agent/…`: the logged-in agent's own account.
    public static var agent: AgentEndpoints { AgentEndpoints() }
}

/// The endpoints of an agent's own account (agents and admins only).
public struct AgentEndpoints: Sendable {
    /// `GET /v1/agent/me`.
    public var me: Endpoint<Void, Agent> { .init(.get, "/v1/agent/me") }
    /// `PUT /v1/agent/availability`: online, away or offline.
    public var setAvailability: Endpoint<AvailabilityRequest, Agent> { .init(.put, "/v1/agent/availability") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] { [me.erased, setAvailability.erased] }
}
