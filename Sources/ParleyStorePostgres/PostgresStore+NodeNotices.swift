import ParleyCore
import Foundation
import ParleyStore
import PostgresNIO

extension PostgresStore: NodeNoticeSource {
    /// Listens on a connection of its own (outside the pool) and turns the other nodes' notices into
    /// a stream. When that connection drops, it reconnects with backoff and then yields
    /// ``NodeNotice/resync``: notices sent meanwhile are lost, and the seqs tell what was missed.
    public func nodeNotices() -> AsyncStream<NodeNotice> {
        let (stream, continuation) = AsyncStream.makeStream(of: NodeNotice.self, bufferingPolicy: .bufferingOldest(100_000))
        let id = UInt64.random(in: .min ... .max)
        var configuration = connectionConfiguration
        // The listening session names the node: while it is open, the node is alive (a killed
        // process's session ends with it), which the others' heartbeats check in pg_stat_activity.
        configuration.options.additionalStartupParameters.append(("application_name", Self.sessionName(of: nodeID)))
        let task = Task { [configuration, nodeID, logger] in
            await Self.listen(configuration: configuration, ownNode: nodeID, logger: logger, into: continuation)
            continuation.finish()
        }
        continuation.onTermination = { [weak self] _ in
            task.cancel()
            _ = self?.listeners.withLock { $0.removeValue(forKey: id) }
        }
        listeners.withLock { $0[id] = task }
        return stream
    }

    /// The `application_name` of a node's listening session.
    static func sessionName(of node: String) -> String { "parley-node " + node }

    private static func listen(
        configuration: PostgresConnection.Configuration, ownNode: String, logger: Logger,
        into continuation: AsyncStream<NodeNotice>.Continuation
    ) async {
        var hasListened = false
        var backoff = Duration.milliseconds(50)
        while !Task.isCancelled {
            do {
                let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
                do {
                    try await connection.listen(on: NodeNoticeWire.channel) { notices in
                        // LISTEN is in place: anything committed from now on will be heard.
                        if hasListened { continuation.yield(.resync) }
                        hasListened = true
                        backoff = .milliseconds(50)
                        for try await notice in notices {
                            for parsed in NodeNoticeWire.parseBatch(notice.payload, ownNode: ownNode) { continuation.yield(parsed) }
                        }
                    }
                } catch {
                    logger.debug("node notices: listener failed", metadata: ["error": "\(error)"])
                }
                try? await connection.close()
            } catch {
                logger.debug("node notices: cannot connect", metadata: ["error": "\(error)"])
            }
            try? await Task.sleep(for: backoff)
            backoff = min(backoff * 2, .seconds(2))
        }
    }
}
