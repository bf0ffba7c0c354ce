import Dispatch
import NIOCore
import NIOPosix
import Synchronization

/// A TCP relay on 127.0.0.1 that counts the bytes going each way: the client connects to it, it
/// connects to the server. Both sockets of a pair share one event loop, glued by two handlers
/// (the shape of swift-nio-examples' connect-proxy), with back-pressure.
final class CountingRelay: Sendable {
    /// Bytes from the client to the server, and back.
    let toServer = Atomic<Int>(0)
    let toClient = Atomic<Int>(0)
    /// Uptime nanoseconds of the last byte relayed, to tell when a client has gone quiet.
    let lastActivity = Atomic<UInt64>(0)
    private let channel: any Channel

    var port: Int { channel.localAddress?.port ?? 0 }

    private init(channel: any Channel) {
        self.channel = channel
    }

    static func start(upstreamHost: String, upstreamPort: Int, group: any EventLoopGroup) async throws -> CountingRelay {
        let counters = Counters()
        let channel = try await ServerBootstrap(group: group)
            .serverChannelOption(ChannelOptions.socketOption(.so_reuseaddr), value: 1)
            .childChannelOption(ChannelOptions.autoRead, value: false)
            .childChannelInitializer { inbound in
                ClientBootstrap(group: inbound.eventLoop)
                    .connect(host: upstreamHost, port: upstreamPort)
                    .flatMap { outbound in
                        let (clientSide, serverSide) = GlueHandler.matchedPair(
                            countClientBytes: { counters.relay?.record($0, toServer: true) },
                            countServerBytes: { counters.relay?.record($0, toServer: false) })
                        return inbound.pipeline.addHandler(clientSide)
                            .and(outbound.pipeline.addHandler(serverSide))
                            .flatMap { _ in inbound.setOption(ChannelOptions.autoRead, value: true) }
                    }
                    .flatMapErrorThrowing { error in
                        inbound.close(promise: nil)
                        throw error
                    }
            }
            .bind(host: "127.0.0.1", port: 0).get()
        let relay = CountingRelay(channel: channel)
        counters.relay = relay
        return relay
    }

    /// The bytes relayed each way since the last reset.
    var counts: (toServer: Int, toClient: Int) { (toServer.load(ordering: .relaxed), toClient.load(ordering: .relaxed)) }

    /// Forgets what was counted so far.
    func reset() {
        toServer.store(0, ordering: .relaxed)
        toClient.store(0, ordering: .relaxed)
    }

    func stop() async {
        try? await channel.close()
    }

    fileprivate func record(_ bytes: Int, toServer: Bool) {
        if toServer { self.toServer.add(bytes, ordering: .relaxed) } else { toClient.add(bytes, ordering: .relaxed) }
        lastActivity.store(DispatchTime.now().uptimeNanoseconds, ordering: .relaxed)
    }

    /// Waits until nothing has been relayed for `quiet` (the client finished what it does on its own).
    func waitUntilQuiet(for quiet: Duration = .milliseconds(300)) async throws {
        let quietNanoseconds = UInt64(quiet.components.seconds) * 1_000_000_000 + UInt64(quiet.components.attoseconds / 1_000_000_000)
        while DispatchTime.now().uptimeNanoseconds - lastActivity.load(ordering: .relaxed) < quietNanoseconds {
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}

/// Set once the relay exists; read by the handlers of every connection.
private final class Counters: @unchecked Sendable {
    // Written once before the first connection can be accepted, read only afterwards.
    var relay: CountingRelay?
}

/// One side of a relayed connection: what it reads, its partner writes.
private final class GlueHandler: ChannelDuplexHandler, @unchecked Sendable {
    // Both handlers of a pair live on one event loop and are only touched there.
    typealias InboundIn = ByteBuffer
    typealias OutboundIn = ByteBuffer
    typealias OutboundOut = ByteBuffer

    private var partner: GlueHandler?
    private var context: ChannelHandlerContext?
    private var pendingRead = false
    private let count: (Int) -> Void

    private init(count: @escaping (Int) -> Void) {
        self.count = count
    }

    static func matchedPair(countClientBytes: @escaping (Int) -> Void, countServerBytes: @escaping (Int) -> Void) -> (GlueHandler, GlueHandler) {
        let client = GlueHandler(count: countClientBytes)
        let server = GlueHandler(count: countServerBytes)
        client.partner = server
        server.partner = client
        return (client, server)
    }

    func handlerAdded(context: ChannelHandlerContext) { self.context = context }

    func handlerRemoved(context: ChannelHandlerContext) {
        self.context = nil
        partner = nil
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        count(unwrapInboundIn(data).readableBytes)
        partner?.context?.write(data, promise: nil)
    }

    func channelReadComplete(context: ChannelHandlerContext) { partner?.context?.flush() }

    func channelInactive(context: ChannelHandlerContext) { partner?.context?.close(promise: nil) }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        if let event = event as? ChannelEvent, case .inputClosed = event {
            partner?.context?.close(mode: .output, promise: nil)
        }
        context.fireUserInboundEventTriggered(event)
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) { context.close(promise: nil) }

    func channelWritabilityChanged(context: ChannelHandlerContext) {
        if context.channel.isWritable, let partner, partner.pendingRead {
            partner.pendingRead = false
            partner.context?.read()
        }
    }

    func read(context: ChannelHandlerContext) {
        if partner?.context?.channel.isWritable ?? false {
            context.read()
        } else {
            pendingRead = true
        }
    }
}
