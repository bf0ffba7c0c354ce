import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// Hands the commits of other parleyd nodes on the same database to this node's hub, so that a
/// message stored on node A reaches the sockets on node B (decision 0006).
///
/// Notices carry ids and seqs only; the events are read from the store, then published exactly as
/// a local commit is. Writers' cursors drop what they already sent and fill holes from the store,
/// so a late or repeated notice is harmless. After an interruption (``NodeNotice/resync``) every
/// subscription here catches up from its cursor.
struct NodeFanOut: Service {
    let source: any NodeNoticeSource
    let store: any ParleyStore
    let hub: Hub
    let logger: Logger

    func run() async throws {
        let notices = source.nodeNotices()
        // Shutting down cancels the loop; dropping the stream stops the listener.
        await cancelWhenGracefulShutdown {
            for await notice in notices {
                do {
                    try await handle(notice)
                } catch {
                    // A read failed (the store is in trouble): catching up from cursors repairs what this missed.
                    logger.warning("node notice not handled", metadata: ["error": "\(error)"])
                    hub.resynchronize()
                }
            }
        }
    }

    func handle(_ notice: NodeNotice) async throws {
        switch notice {
        case .committed(let id, let app, let seqs):
            guard hub.caresAbout(id, app: app) else { return }
            let count = Int(seqs.upperBound - seqs.lowerBound + 1)
            let events = try await store.events(id, app: app, afterSeq: seqs.lowerBound - 1, limit: min(count, Limits.maxEventPage))
            guard !events.isEmpty, let conversation = try await store.conversation(id, app: app) else { return }
            hub.publish(ConversationCommit(conversation: conversation, events: events))
        case .resync:
            hub.resynchronize()
        }
    }
}
