import Foundation
import ParleyCore
import ParleyStore

/// What agents list and how they sort their work: the inbox's views and counts, history paged
/// through the store, and triage (tags, priority, snooze) told live to the app's agents.
struct InboxService: Sendable {
    let store: any ParleyStore
    let routing: RoutingEngine
    let hub: Hub
    let nodes: NodeLink
    let settings: AppSettings
    let clock: any WallClock

    /// A page of a view, with every listed conversation's triage.
    func list(_ request: InboxRequest, by agent: AgentCaller) async throws -> ConversationList {
        var conversations: [Conversation]
        var next: String?
        if request.view.isOpen {
            let open = try await store.openConversations(app: agent.appID, reader: agent.agentID)
            let selected = InboxViews.select(request.view, from: open, me: agent.agentID, filter: request.filter, now: clock.now())
            let offset = request.offset
            conversations = selected.dropFirst(offset).prefix(request.limit).map(\.conversation)
            if selected.count > offset + request.limit { next = InboxCursor.offset(offset + request.limit).text }
        } else {
            let rows = try await store.conversations(ConversationQuery(
                appID: agent.appID, agentID: request.filter.agentID, states: request.view == .ended ? [.ended] : nil,
                limit: request.limit + 1, queueID: request.filter.queueID, tag: request.filter.tag, priority: request.filter.priority,
                after: request.position))
            conversations = Array(rows.prefix(request.limit))
            if rows.count > request.limit, let last = conversations.last {
                next = InboxCursor.position(.init(updatedAt: last.updatedAt, id: last.id)).text
            }
        }
        for index in conversations.indices where conversations[index].state == .queued {
            conversations[index].queuePosition = await routing.position(of: conversations[index].id)
        }
        if request.view == .queued {
            conversations.sort { ($0.queuePosition ?? .max, $0.id) < ($1.queuePosition ?? .max, $1.id) }
        }
        return ConversationList(conversations: conversations, triage: try await triage(of: conversations.map(\.id), app: agent.appID),
                                nextCursor: next)
    }

    /// How many conversations each open view holds for the agent now.
    func counts(for agent: AgentCaller) async throws -> InboxCounts {
        InboxViews.counts(try await store.openConversations(app: agent.appID, reader: agent.agentID), me: agent.agentID, now: clock.now())
    }

    /// The conversations' triage, the defaults for those never triaged, in the same order.
    func triage(of ids: [ConversationID], app: AppID) async throws -> [Triage] {
        let stored = Dictionary(try await store.triage(ids, app: app).map { ($0.conversationID, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.map { stored[$0] ?? Triage(conversationID: $0) }
    }

    /// Changes a conversation's triage: tags from the app's list, a snooze in the future. Tells the
    /// app's agents that follow the conversation, on every node.
    /// - Throws: 404 for a conversation not in the app; 400 naming the field at fault.
    func updateTriage(_ id: ConversationID, _ update: TriageUpdate, by agent: AgentCaller) async throws -> Triage {
        guard let conversation = try await store.conversation(id, app: agent.appID) else { throw APIError.notFound("conversation not found") }
        if let tags = update.tags {
            let offered = Set(try await settings.tags(app: agent.appID).tags.map(\.name))
            let current = Set(try await store.triage([id], app: agent.appID).first?.tags ?? [])
            // A tag the admin has since removed may stay where it is; it cannot be added.
            if let unknown = tags.first(where: { !offered.contains($0) && !current.contains($0) }) {
                throw APIError.badRequest("tags: \(unknown) is not one of the app's tags")
            }
        }
        if case .some(.some(let until)) = update.snoozedUntil {
            guard until > clock.now() else { throw APIError.badRequest("snoozed_until: must be in the future") }
            // A snooze sets aside an agent's own work; a queued conversation waits for anyone.
            guard conversation.state == .assigned else {
                throw APIError.conflict("invalid_state", "only an assigned conversation can be snoozed; this one is \(conversation.state.rawValue)")
            }
        }
        let triage = try await store.updateTriage(id, app: agent.appID, update, by: .agent(agent.agentID, name: agent.name), at: clock.now())
        hub.publish(triage, app: agent.appID)
        await nodes.announce(.triageChanged(id, app: agent.appID))
        return triage
    }
}
