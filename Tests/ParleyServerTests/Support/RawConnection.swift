import ParleyCore
import NIOCore
import NIOPosix
import NIOSSL
import ParleyTestSupport

/// A TCP connection (TLS when the server serves it) on which a test writes and reads the bytes
/// itself: partial request heads, frames without a mask, frames sent before the `101`.
///
/// Reads wait for bytes or for the server's close. ``lastResort`` closes a connection the server
/// still holds after that long, and the read then fails: a passing run never gets near it
/// (docs/testing.md), and it is below the suites' time limits, so the failure is specific.
final class RawConnection {
    static let lastResort: TimeAmount = .seconds(30 * Int64(TestPatience.factor))

    private let outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>
    private var inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator
    private let gaveUp: Flag
    private var pending: [UInt8] = []

    private init(outbound: NIOAsyncChannelOutboundWriter<ByteBuffer>, inbound: NIOAsyncChannelInboundStream<ByteBuffer>.AsyncIterator, gaveUp: Flag) {
        self.outbound = outbound
        self.inbound = inbound
        self.gaveUp = gaveUp
    }

    /// Connects to 127.0.0.1:`port` (over TLS, trusting `tls`'s anchor, when given), runs `body`,
    /// and closes the connection.
    static func with<T>(port: Int, tls: TestCertificate? = nil, _ body: (RawConnection) async throws -> T) async throws -> T {
        let context = try tls.map { certificate in
            var configuration = TLSConfiguration.makeClientConfiguration()
            configuration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificate.trustAnchorPEM.utf8)))
            return try NIOSSLContext(configuration: configuration)
        }
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton).connect(host: "127.0.0.1", port: port) { channel in
            channel.eventLoop.makeCompletedFuture {
                if let context {
                    try channel.pipeline.syncOperations.addHandler(try NIOSSLClientHandler(context: context, serverHostname: "localhost"))
                }
                return try NIOAsyncChannel<ByteBuffer, ByteBuffer>(wrappingChannelSynchronously: channel)
            }
        }
        let gaveUp = Flag()
        let lastResort = channel.channel.eventLoop.scheduleTask(in: Self.lastResort) { [underlying = channel.channel] in
            gaveUp.raise()
            underlying.close(promise: nil)
        }
        defer { lastResort.cancel() }
        return try await channel.executeThenClose { inbound, outbound in
            try await body(RawConnection(outbound: outbound, inbound: inbound.makeAsyncIterator(), gaveUp: gaveUp))
        }
    }

    func send(_ bytes: [UInt8]) async throws {
        try await outbound.write(ByteBuffer(bytes: bytes))
    }

    /// The bytes up to and including the first `terminator` (a response head's empty line, say).
    func read(through terminator: [UInt8]) async throws -> [UInt8] {
        while true {
            if let range = pending.firstRange(of: terminator) {
                defer { pending.removeSubrange(..<range.upperBound) }
                return Array(pending[..<range.upperBound])
            }
            guard let chunk = try await inbound.next() else {
                try checkClosedByServer()
                throw TestFailure("closed before \(terminator); got \(pending)")
            }
            pending += chunk.readableBytesView
        }
    }

    /// Everything the server sends until it closes the connection.
    func readUntilClosed() async throws -> [UInt8] {
        do {
            while let chunk = try await inbound.next() { pending += chunk.readableBytesView }
        } catch let error as NIOSSLError where error == .uncleanShutdown {
            // A TLS server that closes without close_notify: closed all the same.
        }
        try checkClosedByServer()
        defer { pending = [] }
        return pending
    }

    private func checkClosedByServer() throws {
        if gaveUp.isRaised { throw TestFailure("the server kept the connection open for \(Self.lastResort)") }
    }

    /// Set once by the last resort's timer, read by the test's task.
    private final class Flag: Sendable {
        private let value = Locked(false)
        func raise() { value.withLock { $0 = true } }
        var isRaised: Bool { value.withLock { $0 } }
    }
}
