import Foundation
import NIOCore
import NIOHTTP1
import NIOPosix
import NIOWebSocket

/// What a socket tells its owner. Every call happens on the socket's event loop.
protocol SocketDelegate: AnyObject {
    func socketOpened(_ socket: Socket)
    func socket(_ socket: Socket, text: ByteBuffer)
    func socketClosed(_ socket: Socket)
}

/// One client WebSocket on plain SwiftNIO: text frames in and out, pings answered, nothing else.
/// Not thread-safe: use it on its channel's event loop only.
final class Socket: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = WebSocketFrame
    typealias OutboundOut = WebSocketFrame

    var index: Int
    weak var delegate: (any SocketDelegate)?
    private(set) var context: ChannelHandlerContext?
    private(set) var isOpen = false
    private var needsFlush = false

    init(index: Int, delegate: any SocketDelegate) {
        self.index = index
        self.delegate = delegate
    }

    func handlerAdded(context: ChannelHandlerContext) {
        self.context = context
        isOpen = context.channel.isActive
        if isOpen { delegate?.socketOpened(self) }
    }

    func channelInactive(context: ChannelHandlerContext) {
        if isOpen {
            isOpen = false
            delegate?.socketClosed(self)
        }
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let frame = unwrapInboundIn(data)
        switch frame.opcode {
        case .text:
            delegate?.socket(self, text: frame.unmaskedData)
        case .ping:
            var pong = WebSocketFrame(fin: true, opcode: .pong, maskKey: .random(), data: frame.unmaskedData)
            pong.rsv1 = false
            context.writeAndFlush(wrapOutboundOut(pong), promise: nil)
        case .connectionClose:
            context.close(promise: nil)
        default:
            break
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        context.close(promise: nil)
    }

    /// Queues a text frame; call `flush()` (or `flushIfNeeded()`) to send what was queued.
    func write(_ bytes: ByteBuffer) {
        guard let context, isOpen else { return }
        let frame = WebSocketFrame(fin: true, opcode: .text, maskKey: .random(), data: bytes)
        context.write(wrapOutboundOut(frame), promise: nil)
        needsFlush = true
    }

    func flushIfNeeded() {
        guard needsFlush, let context else { return }
        needsFlush = false
        context.flush()
    }

    /// Drops the TCP connection without a close frame, as a network failure would.
    func drop() {
        context?.close(promise: nil)
    }
}

/// Sends the upgrade request once the TCP connection is up, then leaves the pipeline.
private final class UpgradeRequester: ChannelInboundHandler, RemovableChannelHandler, @unchecked Sendable {
    typealias InboundIn = HTTPClientResponsePart
    typealias OutboundOut = HTTPClientRequestPart
    let host: String
    let path: String
    let headers: [(String, String)]
    let failed: Once

    init(host: String, path: String, headers: [(String, String)], failed: Once) {
        self.host = host
        self.path = path
        self.headers = headers
        self.failed = failed
    }

    func channelActive(context: ChannelHandlerContext) {
        var head = HTTPRequestHead(version: .http1_1, method: .GET, uri: path)
        head.headers.add(name: "Host", value: host)
        head.headers.add(name: "Content-Length", value: "0")
        for (name, value) in headers { head.headers.add(name: name, value: value) }
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil)), promise: nil)
        context.fireChannelActive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // Only reached when the server answered without upgrading.
        if case .head(let head) = unwrapInboundIn(data) {
            failed.fail(LoadError("upgrade refused: HTTP \(head.status.code)"))
        }
        context.close(promise: nil)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        failed.fail(error)
        context.close(promise: nil)
    }
}

struct LoadError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Opens a WebSocket to `host:port` + `path` and installs `socket` as its handler. The future
/// succeeds once the upgrade is done.
func connectWebSocket(
    group: any EventLoopGroup, host: String, port: Int, path: String, headers: [(String, String)],
    localAddress: String? = nil, socket: Socket
) -> EventLoopFuture<Void> {
    let loop = group.next()
    let upgraded = Once(loop.makePromise(of: Void.self))
    var bootstrap = ClientBootstrap(group: loop)
        .channelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
        .channelOption(ChannelOptions.tcpOption(.tcp_nodelay), value: 1)
        .connectTimeout(.seconds(30))
        .channelInitializer { channel in
            let requester = UpgradeRequester(host: "\(host):\(port)", path: path, headers: headers, failed: upgraded)
            let upgrader = NIOWebSocketClientUpgrader(maxFrameSize: 1 << 20, automaticErrorHandling: true) { channel, _ in
                channel.eventLoop.makeCompletedFuture {
                    try channel.pipeline.syncOperations.addHandler(
                        NIOWebSocketFrameAggregator(minNonFinalFragmentSize: 0, maxAccumulatedFrameCount: 64, maxAccumulatedFrameSize: 1 << 22))
                    try channel.pipeline.syncOperations.addHandler(socket)
                }
            }
            let config: NIOHTTPClientUpgradeConfiguration = (upgraders: [upgrader], completionHandler: { context in
                context.channel.pipeline.removeHandler(requester, promise: nil)
                upgraded.succeed(())
            })
            return channel.eventLoop.makeCompletedFuture {
                try channel.pipeline.syncOperations.addHTTPClientHandlers(leftOverBytesStrategy: .forwardBytes, withClientUpgrade: config)
                try channel.pipeline.syncOperations.addHandler(requester)
            }
        }
    if let localAddress, let address = try? SocketAddress(ipAddress: localAddress, port: 0) {
        bootstrap = bootstrap.bind(to: address)
    }
    bootstrap.connect(host: host, port: port).whenComplete { result in
        switch result {
        case .success(let channel):
            channel.closeFuture.whenComplete { _ in upgraded.fail(LoadError("closed before upgrade")) }
        case .failure(let error):
            upgraded.fail(error)
        }
    }
    return upgraded.promise.futureResult
}

/// A promise completed at most once (the first outcome wins), on its event loop.
final class Once: @unchecked Sendable {
    let promise: EventLoopPromise<Void>
    private var done = false
    init(_ promise: EventLoopPromise<Void>) { self.promise = promise }
    func succeed(_ value: Void) {
        if !done { done = true; promise.succeed(()) }
    }
    func fail(_ error: any Error) {
        if !done { done = true; promise.fail(error) }
    }
}
