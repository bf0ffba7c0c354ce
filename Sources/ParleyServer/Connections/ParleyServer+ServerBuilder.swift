import Hummingbird
import HummingbirdCore
import HummingbirdTLS
import HummingbirdWebSocket
import NIOCore
import NIOSSL
import ParleyCore

extension ParleyServer {
    /// How connections are served: HTTP/1 with the WebSocket upgrade of `/v1/realtime`, each
    /// connection's raw bytes under a ``ConnectionGuard``, and TLS around both when configured.
    ///
    /// Built by hand rather than with `HTTPServerBuilder.http1WebSocketUpgrade` (which this
    /// matches) and `.tls`, because the guard must sit between the two.
    func makeServerBuilder(socketRouter: Router<ParleyRequestContext>, tls: TLSConfiguration?) throws -> HTTPServerBuilder {
        let socketResponder = socketRouter.buildResponder()
        let channelConfiguration = HTTP1WebSocketUpgradeChannel.Configuration(
            // A kept-alive client that sends nothing more (or a request it never finishes, after
            // the first) cannot hold a connection for ever (ServerConfiguration.idleTimeout).
            http1: .init(idleTimeout: TimeAmount(configuration.idleTimeout)),
            ws: .init(
                maxFrameSize: Limits.maxFrameBytes,
                autoPing: .enabled(timePeriod: configuration.heartbeat),
                // Invalid UTF-8 closes with 1007 (RFC 6455 §8.1) rather than being repaired
                // into text the client never sent: nothing is stored altered.
                validateUTF8: true))
        let requestHeadTimeout = TimeAmount(configuration.requestHeadTimeout)
        let tlsChannelConfiguration = tls.map { TLSChannelConfiguration(tlsConfiguration: $0) }
        return HTTPServerBuilder { responder in
            let guarded = GuardedChildChannel(
                inner: HTTP1WebSocketUpgradeChannel(responder: responder, webSocketResponder: socketResponder, configuration: channelConfiguration),
                requestHeadTimeout: requestHeadTimeout)
            guard let tlsChannelConfiguration else { return guarded }
            return try TLSChannel(guarded, configuration: tlsChannelConfiguration)
        }
    }
}
