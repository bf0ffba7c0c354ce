import NIOCore
import NIOHTTP1

/// Answers a first request the HTTP parser refused with `400` and closes the connection, instead
/// of holding it open.
///
/// In hummingbird-websocket's upgrade pipeline, HTTP errors are handled by handlers added only once
/// a first request head has been parsed; a parser error before that (a NUL byte in a header value,
/// a malformed request line) reaches no one, and the connection stays open with nothing to close
/// it. This handler sits at the end of that pipeline until the first request has gone through (or
/// been upgraded), then leaves.
final class FirstRequestErrorHandler: ChannelInboundHandler, RemovableChannelHandler {
    typealias InboundIn = NIOAny
    typealias OutboundOut = HTTPServerResponsePart

    func channelRead(context: ChannelHandlerContext, data: NIOAny) {
        // The first request head was parsed (or the connection was upgraded): from here on errors
        // are hummingbird's to answer.
        context.fireChannelRead(data)
        context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
    }

    func userInboundEventTriggered(context: ChannelHandlerContext, event: Any) {
        context.fireUserInboundEventTriggered(event)
        if event is HTTPServerUpgradeEvents {
            context.pipeline.syncOperations.removeHandler(context: context, promise: nil)
        }
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        // Other errors (a refused upgrade header, say) are answered by the upgrade's own path.
        guard error is HTTPParserError else {
            context.fireErrorCaught(error)
            return
        }
        let head = HTTPResponseHead(version: .http1_1, status: .badRequest, headers: ["Connection": "close", "Content-Length": "0"])
        context.write(wrapOutboundOut(.head(head)), promise: nil)
        context.writeAndFlush(wrapOutboundOut(.end(nil))).assumeIsolated().whenComplete { _ in
            context.close(promise: nil)
        }
    }
}

@available(*, unavailable)
extension FirstRequestErrorHandler: Sendable {}
