import Logging
import ParleyCore
import ParleyStore

/// What this node tells the other nodes on the same database that no commit carries: typing,
/// agent changes, ended sessions (decision 0006). With a store only one process uses, it says nothing.
struct NodeLink: Sendable {
    /// The shared store, or nil when this node is alone (SQLite).
    let source: (any NodeNoticeSource)?
    let logger: Logger

    init(store: any ParleyStore, logger: Logger) {
        source = store as? any NodeNoticeSource
        self.logger = logger
    }

    /// Sends a signal to the other nodes. A failure is logged, not thrown: the caller's own work is
    /// done, a lost typing signal does no harm, and the periodic sweep repairs a lost agent change.
    func announce(_ signal: NodeSignal) async {
        guard let source else { return }
        do {
            try await source.announce(signal)
        } catch {
            logger.warning("node signal not sent", metadata: ["error": "\(error)"])
        }
    }
}
