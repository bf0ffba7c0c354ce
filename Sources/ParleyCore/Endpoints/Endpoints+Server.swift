import Foundation

extension Endpoint {
    /// The server's own endpoints: health, metrics, the realtime socket and the API's description.
    public static var server: ServerEndpoints { ServerEndpoints() }
}

/// The server's own endpoints.
public struct ServerEndpoints: Sendable {
    /// `GET /health`: no token needed. Always 200 while the process runs (liveness).
    public var health: Endpoint<Void, Health> { .init(.get, "/health") }
    /// `GET /ready`: no token needed. 200 when the database answers in time, else 503 (readiness:
    /// a load balancer sends clients elsewhere).
    public var ready: Endpoint<Void, Health> { .init(.get, "/ready") }
    /// `GET /metrics`: Prometheus text, for the operator token.
    public var metrics: Endpoint<Void, String> { .init(.get, "/metrics") }
    /// `GET /v1/realtime`: the WebSocket of docs/protocol.md; without an upgrade, 426.
    public var realtime: Endpoint<Void, Void> { .init(.get, "/v1/realtime") }
    /// `GET /v1/openapi.json`: the OpenAPI 3.1 document of every endpoint here, for anyone. Its JSON
    /// text is for tools (code generators, API testers), not a Parley type.
    public var openAPI: Endpoint<Void, String> { .init(.get, "/v1/openapi.json") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] { [health.erased, ready.erased, metrics.erased, realtime.erased, openAPI.erased] }
}
