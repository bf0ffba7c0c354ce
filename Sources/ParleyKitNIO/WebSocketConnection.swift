import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket
import ParleyKit
@_spi(WSInternal) import WSCore

/// One WebSocket connection, from TCP to the end of the socket: TLS (``ClientTLS``, where pinned
/// keys are checked), the HTTP upgrade, then swift-websocket's frame handling.
///
/// WSClient's `WebSocketClient` builds its TLS handler itself and offers no way to see the
/// server's certificates, so the connection is set up here: the same pipeline WSClient builds,
/// with our TLS handler. The frames are then handled by the same `WebSocketHandler` WSClient uses
/// (pings, fragments, UTF-8, the close handshake), through its `WSInternal` SPI, which
/// hummingbird-websocket uses too; the package version is pinned in Package.swift.
struct WebSocketConnection: Sendable {
    /// Why the upgrade did not happen: the server answered the upgrade request with an HTTP error.
    struct UpgradeRefused: Error {}

    /// The context handed to the frame handler (only its logger is used).
    struct Context: WebSocketContext {
        let logger: Logger
    }

    typealias Handler = @Sendable (WebSocketInboundStream, WebSocketOutboundWriter, Context) async throws -> Void

    private enum UpgradeResult: Sendable {
        case websocket(NIOAsyncChannel<WebSocketFrame, WebSocketFrame>)
        case notUpgraded
    }

    let url: URL
    let headers: HTTPFields
    /// TLS, for `wss://`.
    let tls: ClientTLS?
    let maxFrameSize: Int
    let autoPing: AutoPingSetup
    let closeTimeout: Duration
    let logger: Logger

    /// Connects, upgrades and runs `handler` until the socket closes.
    /// - Parameter verdict: where the TLS checks leave their refusal, if they refused the server.
    /// - Returns: the server's close frame, if it sent one.
    func run(verdict: TLSVerdict, handler: @escaping Handler) async throws -> WebSocketCloseFrame? {
        guard let host = url.host, !host.isEmpty else { throw ParleyError.invalidInput("invalid realtime URL \(url.absoluteString)") }
        let isTLS = url.scheme?.lowercased() == "wss"
        let port = url.port ?? (isTLS ? 443 : 80)
        let upgrade = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { [tls] channel in
                channel.eventLoop.makeCompletedFuture {
                    if isTLS {
                        guard let tls else { throw ParleyError.invalidInput("wss:// without TLS settings") }
                        try channel.pipeline.syncOperations.addHandler(try tls.handler(host: host, verdict: verdict))
                    }
                    return try configureUpgrade(channel, host: host, port: port, isTLS: isTLS)
                }
            }
        switch try await upgrade.get() {
        case .notUpgraded:
            throw UpgradeRefused()
        case .websocket(let channel):
            return try await WebSocketHandler.handle(
                type: .client,
                configuration: .init(extensions: [], autoPing: autoPing, closeTimeout: closeTimeout, validateUTF8: true, maxFrameSize: maxFrameSize),
                asyncChannel: channel,
                context: Context(logger: logger),
                handler: handler
            )
        }
    }

    private func configureUpgrade(_ channel: any Channel, host: String, port: Int, isTLS: Bool) throws -> EventLoopFuture<UpgradeResult> {
        let upgrader = NIOTypedWebSocketClientUpgrader<UpgradeResult>(
            maxFrameSize: maxFrameSize,
            upgradePipelineHandler: { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    .websocket(try NIOAsyncChannel<WebSocketFrame, WebSocketFrame>(wrappingChannelSynchronously: channel))
                }
            }
        )
        let defaultPort = isTLS ? 443 : 80
        var head = HTTPHeaders()
        let hostLiteral = host.contains(":") ? "[\(host)]" : host
        head.add(name: "Host", value: port == defaultPort ? hostLiteral : "\(hostLiteral):\(port)")
        for field in headers { head.add(name: field.name.rawName, value: field.value) }
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?\(query)" }
        let request = HTTPRequestHead(version: .http1_1, method: .GET, uri: path, headers: head)
        let upgradeConfiguration = NIOTypedHTTPClientUpgradeConfiguration(
            upgradeRequestHead: request,
            upgraders: [upgrader],
            notUpgradingCompletionHandler: { channel in channel.eventLoop.makeSucceededFuture(.notUpgraded) }
        )
        var pipeline = NIOUpgradableHTTPClientPipelineConfiguration(upgradeConfiguration: upgradeConfiguration)
        pipeline.leftOverBytesStrategy = .forwardBytes
        return try channel.pipeline.syncOperations.configureUpgradableHTTPClientPipeline(configuration: pipeline)
    }
}
