import CoreMetrics
import Logging
import ParleyCore
import ParleyStore

/// The one way a conversation changes, whoever changes it (a visitor, an agent, routing):
///
/// 1. the store commits the change durably, with the side effects' outbox rows (``CommitEffects``)
///    in the same transaction, and tells the other nodes after it lands;
/// 2. the hub hands the new events to this node's sockets and long-poll waiters;
/// 3. routing follows a conversation that moved (opened, queued, assigned, transferred, ended).
///
/// Nothing is told before it is stored, and nothing stored goes untold. A later feature that must
/// happen because of a commit adds a ``CommitEffects`` rule (its outbox rows) and a worker that
/// delivers them, not another call site.
struct ConversationCommitter: Sendable {
    let store: any ConversationStore
    let hub: Hub
    /// Routing, told of moves after the publish. Held weakly (``RoutingFeedback``): routing commits
    /// its own decisions through this committer.
    let routing: RoutingFeedback
    let effects: any CommitEffects
    let metrics: ServerMetrics
    let logger: Logger

    /// Commits `change` and tells everyone concerned. A duplicate (a resent message) is answered
    /// from the store and told to nobody; a no-op (ending an ended conversation) changes nothing.
    /// - Throws: the store's refusal (``StoreError``), before anyone was told anything.
    @discardableResult
    func commit(_ change: ConversationChange) async throws -> ConversationCommit {
        let start = ContinuousClock.now
        let commit = try await store.commit(change, effects: effects)
        guard !commit.isDuplicate, !commit.events.isEmpty else { return commit }
        hub.publish(commit)
        if commit.moved { await routing.committed(commit) }
        metrics.commitDuration.recordInterval(since: start)
        metrics.changesCommitted.increment()
        metrics.eventsCommitted.increment(by: commit.events.count)
        return commit
    }
}

/// Where the committer tells routing of a move (``RoutingEngine/committed(_:)``), connected once
/// the routing engine exists: the engine commits through the committer, so they need each other,
/// and this side holds the engine weakly to make no cycle.
final class RoutingFeedback: Sendable {
    private struct Target: @unchecked Sendable {
        // Sendable: only read and written under the mutex, and RoutingEngine is an actor.
        weak var engine: RoutingEngine?
    }

    private let target = Locked(Target())

    func connect(_ routing: RoutingEngine) { target.withLock { $0.engine = routing } }

    func committed(_ commit: ConversationCommit) async {
        await target.withLock { $0.engine }?.committed(commit)
    }
}
