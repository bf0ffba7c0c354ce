import ParleyCore
import NIOCore
import NIOPosix

/// A load balancer's stand-in: accepts TCP connections on a local port and relays each, byte for
/// byte, to the port set in `target` when it was accepted. Changing `target` moves new connections
/// only; when either side of a relayed connection closes, so does the other.
final class TCPRelay: Sendable {
    private let targetPort: Locked<Int>
    private let server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>
    private let runner = Locked<Task<Void, Never>?>(nil)
    let port: Int

    private init(target: Int, server: NIOAsyncChannel<NIOAsyncChannel<ByteBuffer, ByteBuffer>, Never>, port: Int) {
        targetPort = Locked(target)
        self.server = server
        self.port = port
    }

    /// Listens on a free port of 127.0.0.1 and relays to `127.0.0.1:target`.
    static func start(target: Int) async throws -> TCPRelay {
        let server = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .serverChannelOption(.socketOption(.so_reuseaddr), value: 1)
            .bind(host: "127.0.0.1", port: 0) { channel in
                channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
            }
        let relay = TCPRelay(target: target, server: server, port: server.channel.localAddress?.port ?? 0)
        relay.runner.withLock { $0 = Task { await relay.acceptLoop() } }
        return relay
    }

    /// Where connections accepted from now on go.
    var target: Int {
        get { targetPort.withLock { $0 } }
        set { targetPort.withLock { $0 = newValue } }
    }

    /// Stops accepting and closes every relayed connection.
    func stop() async {
        let task = runner.withLock { $0 }
        task?.cancel()
        try? await server.channel.close()
        await task?.value
    }

    private func acceptLoop() async {
        try? await withThrowingDiscardingTaskGroup { group in
            try await server.executeThenClose { inbound in
                for try await client in inbound {
                    let port = target
                    group.addTask { await Self.relay(client, to: port) }
                }
            }
        }
    }

    private static func relay(_ client: NIOAsyncChannel<ByteBuffer, ByteBuffer>, to port: Int) async {
        do {
            let upstream = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
                .connect(host: "127.0.0.1", port: port) { channel in
                    channel.eventLoop.makeCompletedFuture { try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel) }
                }
            try await client.executeThenClose { clientIn, clientOut in
                try await upstream.executeThenClose { upstreamIn, upstreamOut in
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask { for try await bytes in clientIn { try await upstreamOut.write(bytes) } }
                        group.addTask { for try await bytes in upstreamIn { try await clientOut.write(bytes) } }
                        // Either side ending ends both.
                        _ = try await group.next()
                        group.cancelAll()
                    }
                }
            }
        } catch {
            try? await client.channel.close()
        }
    }
}
