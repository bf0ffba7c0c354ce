import Foundation
import HTTPTypes
import Logging
import NIOCore
import NIOSSL
import NIOWebSocket
import ParleyCore
import ParleyTestSupport
import WSClient

/// A realtime client for tests: frames in arrive on a stream; `next(…)` awaits one that matches.
final class TestSocket: Sendable {
    /// How long a wait for a frame goes on before it fails with what was pending instead. A last
    /// resort, not a schedule: waits end on the frame, and a passing run is far from this even on a
    /// loaded machine (docs/testing.md). Below the suites' time limits, so the failure is specific;
    /// stretched by `TestPatience` in slow runs (ThreadSanitizer).
    static let lastResort: Duration = .seconds(30)

    private let outbound = Locked<WebSocketOutboundWriter?>(nil)
    let buffer = FrameBuffer()
    /// The close code the server sent, once closed.
    let closeCode = Locked<WebSocketErrorCode?>(nil)
    private let closedSignal = FrameBuffer()

    private init() {}

    /// Connects with a bearer token and waits for the `ready` frame; over `wss:` trusting `tls`'s anchor.
    static func connect(url: String, token: String, tls: TestCertificate? = nil) async throws -> TestSocket {
        try await connect(url: url, headers: [.authorization: "Bearer \(token)"], tls: tls)
    }

    /// Connects with the given upgrade headers (a desk cookie and an `Origin`, say) and waits for
    /// `ready`; over `wss:` trusting `tls`'s anchor.
    static func connect(url: String, headers: HTTPFields, tls: TestCertificate? = nil) async throws -> TestSocket {
        let socket = TestSocket()
        let (ready, readyContinuation) = AsyncStream.makeStream(of: Result<Void, any Error>.self)
        var configuration = WebSocketClientConfiguration()
        configuration.additionalHeaders = headers
        configuration.maxFrameSize = 1 << 20
        // swift-websocket would send the URL's IP address as the TLS server name, which TLS forbids.
        if tls != nil { configuration.sniHostname = "localhost" }
        let tlsConfiguration = try tls.map { certificate in
            var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
            tlsConfiguration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(certificate.trustAnchorPEM.utf8)))
            return tlsConfiguration
        }
        Task {
            do {
                let close = try await WebSocketClient.connect(
                    url: url, configuration: configuration, tlsConfiguration: tlsConfiguration, logger: Logger(label: "test-ws")
                ) { inbound, outbound, _ in
                    socket.outbound.withLock { $0 = outbound }
                    readyContinuation.yield(.success(()))
                    let decoder = ParleyJSON.makeDecoder()
                    for try await message in inbound.messages(maxSize: 1 << 22) {
                        guard case .text(let text) = message else { continue }
                        if let frame = try? decoder.decode(ServerFrame.self, from: Data(text.utf8)) {
                            socket.buffer.push(frame)
                        }
                    }
                }
                socket.closeCode.withLock { $0 = close?.closeCode }
            } catch {
                readyContinuation.yield(.failure(error))
            }
            socket.buffer.finish()
            socket.closedSignal.finish()
        }
        var readyIterator = ready.makeAsyncIterator()
        try await readyIterator.next()?.get()
        let first = try await socket.next()
        guard case .ready = first else { throw TestFailure("expected ready, got \(first)") }
        return socket
    }

    /// Sends a client frame.
    func send(_ frame: ClientFrame) async throws {
        try await sendText(String(decoding: try ParleyJSON.encode(frame), as: UTF8.self))
    }

    func sendText(_ text: String) async throws {
        guard let outbound = outbound.withLock({ $0 }) else { throw TestFailure("not connected") }
        try await outbound.write(.text(text))
    }

    /// Sends a text frame whose payload is `bytes` as they are, valid UTF-8 or not.
    func sendTextBytes(_ bytes: [UInt8]) async throws {
        guard let outbound = outbound.withLock({ $0 }) else { throw TestFailure("not connected") }
        try await outbound.write(.custom(WebSocketFrame(fin: true, opcode: .text, data: ByteBuffer(bytes: bytes))))
    }

    func sendBinary(_ bytes: [UInt8]) async throws {
        guard let outbound = outbound.withLock({ $0 }) else { throw TestFailure("not connected") }
        try await outbound.write(.binary(ByteBuffer(bytes: bytes)))
    }

    /// The oldest frame not yet taken.
    func next(timeout: Duration = lastResort) async throws -> ServerFrame {
        try await buffer.take(timeout: timeout) { _ in true }
    }

    /// The oldest frame that matches (others stay for later checks); throws after `timeout`.
    func next(timeout: Duration = lastResort, where matches: @escaping @Sendable (ServerFrame) -> Bool) async throws -> ServerFrame {
        try await buffer.take(timeout: timeout, where: matches)
    }

    /// Waits for the next event of a conversation that matches.
    func nextEvent(in conversation: ConversationID, timeout: Duration = lastResort, where matches: @escaping @Sendable (ConversationEvent) -> Bool = { _ in true }) async throws -> ConversationEvent {
        let frame = try await next(timeout: timeout) { frame in
            if case .event(let event) = frame { return event.conversationID == conversation && matches(event) }
            return false
        }
        guard case .event(let event) = frame else { throw TestFailure("unreachable") }
        return event
    }

    /// Events of a conversation that the server queued for this socket before now and that are not
    /// taken yet, in arrival order (takes them).
    ///
    /// A ping is the barrier, not a quiet period: the server handles a socket's frames in order and
    /// writes everything it queued for the socket in order, so once this ping's pong is here, every
    /// event queued before it (by this socket's frames, or by requests that already returned) is too.
    func takeEvents(in conversation: ConversationID) async throws -> [ConversationEvent] {
        let ref = "barrier-\(UUID().uuidString)"
        try await send(.ping(.init(ref: ref)))
        _ = try await next { if case .pong(let pong) = $0 { pong.ref == ref } else { false } }
        return buffer.takeAll { frame in
            if case .event(let event) = frame { event.conversationID == conversation } else { false }
        }.compactMap { frame in
            if case .event(let event) = frame { event } else { nil }
        }
    }

    /// Closes the socket normally and waits until it is closed.
    func close() async {
        if let outbound = outbound.withLock({ $0 }) {
            try? await outbound.close(.normalClosure, reason: nil)
        }
        try? await waitUntilClosed()
    }

    /// The close code the server sent, once the socket is closed.
    var receivedCloseCode: WebSocketErrorCode? { closeCode.withLock { $0 } }

    /// Waits until the connection is closed (by either side).
    func waitUntilClosed(timeout: Duration = .seconds(30)) async throws {
        _ = try? await closedSignal.take(timeout: timeout) { _ in false }
        guard closedSignal.isFinished else { throw TestFailure("socket still open after \(TestPatience.scaled(timeout))") }
    }
}
