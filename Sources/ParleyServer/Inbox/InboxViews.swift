import Foundation
import ParleyCore
import ParleyStore

/// The inbox's views over the app's open conversations: a pure function of what the store read,
/// who is looking and when, so every view and its count agree and are tested without a server.
enum InboxViews {
    /// The views of `GET /v1/conversations?view=` an agent may ask for.
    enum View: String, Sendable, CaseIterable {
        /// Waiting in a queue, unassigned (queue order).
        case queued
        /// Assigned to me.
        case mine
        /// Mine with visitor messages after my read marker.
        case unread
        /// Queued or assigned, the visitor writing last: the longest wait for an answer first.
        case waiting
        /// Mine, snoozed now: the soonest back first.
        case snoozed
        /// Assigned to a teammate (`agent_id`).
        case agent
        /// Open in one queue (`queue_id`).
        case queue
        /// Ended conversations: history, paged.
        case ended
        /// Every conversation of the app, paged.
        case all

        /// Whether the view is computed over open conversations (the others page through the store).
        var isOpen: Bool { ![.ended, .all].contains(self) }
    }

    /// What narrows any view.
    struct Filter: Sendable, Hashable {
        var tag: String?
        var priority: ConversationPriority?
        var queueID: QueueID?
        var agentID: AgentID?

        func admits(_ open: OpenConversation) -> Bool {
            if let tag, !open.triage.tags.contains(tag) { return false }
            if let priority, open.triage.priority != priority { return false }
            if let queueID, open.conversation.queueID != queueID { return false }
            if let agentID, open.conversation.agentID != agentID { return false }
            return true
        }
    }

    /// The open conversations of a view, in its order. Snoozed ones appear only in `snoozed`.
    static func select(_ view: View, from open: [OpenConversation], me: AgentID, filter: Filter, now: Date) -> [OpenConversation] {
        let awake = open.filter { filter.admits($0) && !isAsleep($0, now: now) }
        switch view {
        case .queued:
            return awake.filter { $0.conversation.state == .queued }.sorted(by: queueOrder)
        case .mine:
            return awake.filter { isMine($0, me) }.sorted(by: recentFirst)
        case .unread:
            return awake.filter { isMine($0, me) && $0.lastVisitorMessageSeq > $0.readerReadSeq }.sorted(by: recentFirst)
        case .waiting:
            return awake.filter { $0.waitingSince != nil }.sorted { ($0.waitingSince!, $0.conversation.id) < ($1.waitingSince!, $1.conversation.id) }
        case .snoozed:
            return open.filter { filter.admits($0) && isAsleep($0, now: now) && isMine($0, me) }
                .sorted { ($0.triage.snoozedUntil!, $0.conversation.id) < ($1.triage.snoozedUntil!, $1.conversation.id) }
        case .agent:
            return awake.filter { $0.conversation.state == .assigned }.sorted(by: recentFirst)
        case .queue:
            return awake.sorted(by: queueOrder)
        case .ended, .all:
            return []
        }
    }

    /// How many conversations each open view holds now, and the open ones per queue and agent.
    static func counts(_ open: [OpenConversation], me: AgentID, now: Date) -> InboxCounts {
        let all = Filter()
        var byQueue: [String: Int] = [:]
        var byAgent: [String: Int] = [:]
        for conversation in open where !isAsleep(conversation, now: now) {
            byQueue[conversation.conversation.queueID.rawValue, default: 0] += 1
            if conversation.conversation.state == .assigned, let agent = conversation.conversation.agentID {
                byAgent[agent.rawValue, default: 0] += 1
            }
        }
        return InboxCounts(
            queued: select(.queued, from: open, me: me, filter: all, now: now).count,
            mine: select(.mine, from: open, me: me, filter: all, now: now).count,
            unread: select(.unread, from: open, me: me, filter: all, now: now).count,
            waiting: select(.waiting, from: open, me: me, filter: all, now: now).count,
            snoozed: select(.snoozed, from: open, me: me, filter: all, now: now).count,
            byQueue: byQueue, byAgent: byAgent,
            nextWake: open.filter { isAsleep($0, now: now) }.compactMap(\.triage.snoozedUntil).min())
    }

    /// A snooze holds on an assigned conversation until its time, or until the visitor writes after
    /// it was set (the visitor's message needs an answer now), whichever comes first.
    static func isAsleep(_ open: OpenConversation, now: Date) -> Bool {
        guard open.conversation.state == .assigned, open.triage.isSnoozed(at: now) else { return false }
        if let written = open.lastVisitorMessageAt, let set = open.triage.updatedAt, written > set { return false }
        return true
    }

    private static func isMine(_ open: OpenConversation, _ me: AgentID) -> Bool {
        open.conversation.state == .assigned && open.conversation.agentID == me
    }

    private static func recentFirst(_ a: OpenConversation, _ b: OpenConversation) -> Bool {
        (a.conversation.updatedAt, a.conversation.id.rawValue) > (b.conversation.updatedAt, b.conversation.id.rawValue)
    }

    private static func queueOrder(_ a: OpenConversation, _ b: OpenConversation) -> Bool {
        (a.queueRank ?? .max, a.conversation.id.rawValue) < (b.queueRank ?? .max, b.conversation.id.rawValue)
    }
}
