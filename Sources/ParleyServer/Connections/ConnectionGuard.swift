import NIOCore

/// A channel handler on a connection's raw bytes, below HTTP (after TLS, so it reads plaintext):
/// it closes a connection that has not sent its first request head within the deadline, and one
/// whose client sends a WebSocket frame without a mask (close code 1002, RFC 6455 §5.1).
///
/// The decisions are ``ConnectionGuardState``'s; this handler runs them. Bytes it lets through
/// are passed on as they came, without a copy. Once a connection turns out to be plain HTTP, the
/// handler removes itself, so keep-alive requests do not pass through it.
final class ConnectionGuard: ChannelDuplexHandler, RemovableChannelHandler {
    typealias InboundIn = ByteBuffer
    typealias InboundOut = ByteBuffer
    // Both what the HTTP encoder writes (IOData) and the WebSocket encoder's ByteBuffers.
    typealias OutboundIn = IOData
    typealias OutboundOut = IOData

    /// Why the guard called off an upgrade (the error the `101`'s write fails with).
    struct UnmaskedFrameBeforeUpgrade: Error, CustomStringConvertible {
        var description: String { "the client sent a WebSocket frame without a mask (or out of place) before its upgrade completed" }
    }

    private let requestHeadTimeout: TimeAmount
    private var state = ConnectionGuardState()
    private var deadline: Scheduled<Void>?

    /// - Parameter requestHeadTimeout: how long the first request head may take, from the
    ///   connection's start (``ServerConfiguration/requestHeadTimeout``).
    init(requestHeadTimeout: TimeAmount) {
        self.requestHeadTimeout = requestHeadTimeout
    }

    func handlerAdded(context: ChannelHandlerContext) {
        if context.channel.isActive { armDeadline(context: context) }
    }

    func handlerRemoved(context: ChannelHandlerContext) {
        cancelDeadline()
    }

    func channelActive(context: ChannelHandlerContext) {
        armDeadline(context: context)
        context.fireChannelActive()
    }

    func channelInactive(context: ChannelHandlerContext) {
        cancelDeadline()
        context.fireChannelInactive()
    }

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        let buffer = unwrapInboundIn(data)
        let action = buffer.withUnsafeReadableBytes { state.read($0) }
        if deadline != nil, !state.isAwaitingHead { cancelDeadline() }
        switch action {
        case .forward:
            context.fireChannelRead(data)
        case .refuse(let forwarding):
            if forwarding > 0, let valid = buffer.getSlice(at: buffer.readerIndex, length: forwarding) {
                context.fireChannelRead(wrapInboundOut(valid))
            }
            closeWithProtocolError(context: context)
        case .discard:
            break
        }
    }

    func write(context: ChannelHandlerContext, data: NIOAny, promise: EventLoopPromise<Void>?) {
        guard state.isAwaitingFirstAnswer else {
            context.write(data, promise: promise)
            return
        }
        switch state.firstAnswer(isSwitchingProtocols: Self.isSwitchingProtocols(unwrapOutboundIn(data))) {
        case .forward:
            cancelDeadline()
            context.write(data, promise: promise)
        case .forwardAndLeave:
            context.write(data, promise: promise)
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        case .refuseUpgrade:
            context.write(data, promise: nil)
            closeWithProtocolError(context: context)
            // SwiftNIO's upgrade handler goes on with the upgrade (and hands the client's first
            // frames to the WebSocket layer) only once this write succeeds.
            promise?.fail(UnmaskedFrameBeforeUpgrade())
        }
    }

    // MARK: -

    /// A server's close frame: FIN + close, 2 bytes unmasked, status 1002 (protocol error).
    private static let protocolErrorClose: [UInt8] = [0x88, 0x02, 0x03, 0xEA]
    private static let switchingProtocols = Array("HTTP/1.1 101 ".utf8)

    /// Whether an answer's first bytes are a `101` status line. SwiftNIO's HTTP encoder writes a
    /// response head as one buffer, so the status line is never split.
    private static func isSwitchingProtocols(_ data: IOData) -> Bool {
        guard case .byteBuffer(let buffer) = data else { return false }
        return buffer.withUnsafeReadableBytes { $0.starts(with: switchingProtocols) }
    }

    private func closeWithProtocolError(context: ChannelHandlerContext) {
        cancelDeadline()
        let frame = context.channel.allocator.buffer(bytes: Self.protocolErrorClose)
        context.writeAndFlush(wrapOutboundOut(.byteBuffer(frame))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }

    private func armDeadline(context: ChannelHandlerContext) {
        guard deadline == nil, state.isAwaitingHead else { return }
        deadline = context.eventLoop.assumeIsolated().scheduleTask(in: requestHeadTimeout) { [self] in
            deadline = nil
            if state.deadlinePassed() { context.close(promise: nil) }
        }
    }

    private func cancelDeadline() {
        deadline?.cancel()
        deadline = nil
    }
}

@available(*, unavailable)
extension ConnectionGuard: Sendable {}
