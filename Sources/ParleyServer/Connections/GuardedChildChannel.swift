import HummingbirdCore
import Logging
import NIOCore

/// A server child channel that puts a ``ConnectionGuard`` on each connection's raw bytes, then
/// sets up the channel it wraps (HTTP/1 with the WebSocket upgrade), and a
/// ``FirstRequestErrorHandler`` after it.
///
/// The guard is appended, not put first: wrapped in hummingbird's `TLSChannel`, the TLS handler is
/// already in the pipeline, and the guard goes after it, where the bytes are plaintext. The
/// channel's own `additionalChannelHandlers` would not do: hummingbird-websocket adds them only
/// once a first request head has been parsed, too late for a deadline on that head, and never on
/// an upgraded connection.
struct GuardedChildChannel<Inner: ServerChildChannel>: ServerChildChannel {
    typealias Value = Inner.Value

    let inner: Inner
    /// How long a connection may take to send its first request head.
    let requestHeadTimeout: TimeAmount

    func setup(channel: any Channel, logger: Logger) -> EventLoopFuture<Value> {
        channel.eventLoop.makeCompletedFuture {
            try channel.pipeline.syncOperations.addHandler(ConnectionGuard(requestHeadTimeout: requestHeadTimeout))
        }.flatMap {
            inner.setup(channel: channel, logger: logger)
        }.flatMapThrowing { value in
            try channel.pipeline.syncOperations.addHandler(FirstRequestErrorHandler())
            return value
        }
    }

    func handle(value: Value, logger: Logger) async {
        await inner.handle(value: value, logger: logger)
    }
}
