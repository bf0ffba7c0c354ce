import CoreMetrics
import Foundation
import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// Hands what other parleyd nodes on the same database did to this node's hub and routing, so that
/// a message stored on node A reaches the sockets on node B, and routing on every node sees every
/// node's moves (decision 0006).
///
/// Notices carry ids and seqs only; the events are read from the store, then published exactly as
/// a local commit is. Writers' cursors drop what they already sent and fill holes from the store,
/// so a late or repeated notice is harmless. After an interruption (``NodeNotice/resync``) every
/// subscription here catches up from its cursor and routing reconciles with the database.
struct NodeFanOut: Service {
    let source: any NodeNoticeSource
    let store: any ParleyStore
    let hub: Hub
    let routing: RoutingEngine
    /// Forgets an app's masking rules when another node changed them.
    let masking: MaskingService
    let metrics: ServerMetrics
    let clock: any WallClock
    /// How long a silent node's agents still count (``ServerConfiguration/nodeTimeout``).
    let staleAfter: Double
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
        case .committed(let id, let app, let seqs, let moved, let carried):
            if moved { await routing.refresh(id, app: app) }
            guard hub.caresAbout(id, app: app) else { return }
            metrics.noticesReceived.increment()
            if !carried.isEmpty {
                // The events came with the notice: no read of the database.
                let events = try carried.map { try ParleyJSON.decode(ConversationEvent.self, from: Data($0.utf8)) }
                recordLag(of: events)
                hub.publish(events: events, encoded: carried, of: id)
                // Routing mirrors every queue, so only a queued conversation's summary is read.
                if Hub.holdsVisitorMessage(events), hub.hasAgents(of: app), await routing.position(of: id) != nil,
                   let conversation = try await store.conversation(id, app: app), conversation.state == .queued {
                    hub.publishSummaryToAgents(conversation)
                }
                return
            }
            let count = Int(seqs.upperBound - seqs.lowerBound + 1)
            let events = try await store.events(id, app: app, afterSeq: seqs.lowerBound - 1, limit: min(count, Limits.maxEventPage))
            guard !events.isEmpty, let conversation = try await store.conversation(id, app: app) else { return }
            recordLag(of: events)
            hub.publish(ConversationCommit(conversation: conversation, events: events))
        case .noteAdded(let id, let app, let seq):
            guard hub.hasAgents(of: app) else { return }
            for note in try await store.notes(id, app: app, afterSeq: seq - 1, limit: 1) { hub.publish(note, app: app) }
        case .signal(.typing(let id, _, let participant, let isTyping)):
            hub.send(.typing(.init(conversationID: id, participant: participant, isTyping: isTyping)), toSubscribersOf: id)
        case .signal(.agentChanged(let agent, let sessionsEnded)):
            await routing.refreshAgent(agent)
            if sessionsEnded {
                let disabled = try await store.agent(agent)?.agent.isDisabled ?? true
                hub.revoke(agent: agent, reason: disabled ? "account disabled" : "password changed")
            }
        case .signal(.sessionEnded(let agent, let tokenHash)):
            hub.revoke(session: tokenHash, agent: agent, reason: "logged out")
        case .signal(.visitorSessionEnded(let visitor, let tokenHash)):
            hub.revoke(visitorSession: tokenHash, visitor: visitor, reason: "signed out")
        case .signal(.maskingChanged(let app)):
            masking.forget(app)
        case .signal(.triageChanged(let id, let app)):
            guard hub.hasAgents(of: app) else { return }
            for triage in try await store.triage([id], app: app) { hub.publish(triage, app: app) }
        case .signal(.tagsChanged(let app)):
            guard hub.hasAgents(of: app) else { return }
            hub.publish(try await AppSettings(store: store, clock: clock).tags(app: app), app: app)
        case .signal(.answersChanged(let id, let app)):
            guard hub.hasAgents(of: app) else { return }
            hub.publish(try await ConversationAnswers.read(id, app: app, from: store), app: app)
        case .presenceChanged:
            await NodePresence.readRemotePresence(source: source, hub: hub, routing: routing, staleAfter: staleAfter, logger: logger)
        case .resync, .nodeLost:
            // A masking change may have been among what was missed.
            masking.forgetAll()
            hub.resynchronize()
            await NodePresence.readRemotePresence(source: source, hub: hub, routing: routing, staleAfter: staleAfter, logger: logger)
            await routing.reconcile()
        }
    }

    /// How long after it was stored the newest event reached this node.
    private func recordLag(of events: [ConversationEvent]) {
        guard let stored = events.last?.createdAt else { return }
        metrics.noticeLag.recordSeconds(max(0, clock.now().timeIntervalSince(stored)))
    }
}
