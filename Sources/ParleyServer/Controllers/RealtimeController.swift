import Hummingbird
import HummingbirdWebSocket
import ParleyCore

/// `GET /v1/realtime`: the WebSocket of docs/protocol.md. Its routes sit behind a
/// ``CallerMiddleware`` for upgrades, so a session cookie there must name the desk's origin.
struct RealtimeController {
    /// Runs a realtime session on an upgraded connection. A closure, because a session reaches most
    /// of the server (hub, routing, store, conversations) and is built by ``ParleyServer``.
    let runSession: @Sendable (Caller, WebSocketInboundStream, WebSocketOutboundWriter, ParleyRequestContext) async throws -> Void

    /// The HTTP side: answers a plain `GET`, and every upgrade the socket router declines, so a
    /// refusal has the usual error body (401, 403, or 426 for a caller who may connect).
    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.server.realtime) { _, context -> Response in
            _ = try context.requireCaller()
            throw APIError(status: .upgradeRequired, code: "upgrade_required", message: "connect with a WebSocket upgrade")
        }
    }

    /// The upgrade itself, on the WebSocket router.
    func addSocketRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        let realtime: Endpoint<Void, Void> = .server.realtime
        router.ws(RouterPath(realtime.template)) { _, context in
            // A refused caller is not upgraded: the HTTP route above then answers with a body.
            switch try? context.requireCaller() {
            case .visitor?, .agent?: .upgrade([:])
            case .operator?, nil: .dontUpgrade
            }
        } onUpgrade: { inbound, outbound, context in
            try await runSession(try context.requestContext.requireCaller(), inbound, outbound, context.requestContext)
        }
    }
}
