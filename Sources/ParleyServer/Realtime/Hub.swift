import Foundation
import ParleyCore
import ParleyStore

/// Who hears what, in this process: conversation subscribers, each visitor's connections, each
/// app's agent connections, and long-poll waiters. Publishing only queues; it never waits.
final class Hub: Sendable {
    private struct State {
        var subscribers: [ConversationID: [UInt64: RealtimeConnection]] = [:]
        var visitors: [VisitorID: [UInt64: RealtimeConnection]] = [:]
        var appAgents: [AppID: [UInt64: RealtimeConnection]] = [:]
        var agents: [AgentID: [UInt64: RealtimeConnection]] = [:]
        var waiters: [ConversationID: [UInt64: AsyncStream<Void>.Continuation]] = [:]
        var nextID: UInt64 = 1
    }

    private let state = Locked(State())

    /// A fresh id for a connection or waiter.
    func makeID() -> UInt64 {
        state.withLock { state in
            defer { state.nextID += 1 }
            return state.nextID
        }
    }

    // MARK: Connections

    /// Registers a connection for its caller's live frames (visitor frames, or the app's inbox).
    func register(_ connection: RealtimeConnection) {
        state.withLock { state in
            switch connection.caller {
            case .visitor(let visitor):
                state.visitors[visitor.visitorID, default: [:]][connection.id] = connection
            case .agent(let agent):
                state.appAgents[agent.appID, default: [:]][connection.id] = connection
                state.agents[agent.agentID, default: [:]][connection.id] = connection
            case .operator:
                break
            }
        }
    }

    /// Forgets a connection everywhere.
    func unregister(_ connection: RealtimeConnection) {
        state.withLock { state in
            switch connection.caller {
            case .visitor(let visitor):
                state.visitors[visitor.visitorID]?[connection.id] = nil
                if state.visitors[visitor.visitorID]?.isEmpty == true { state.visitors[visitor.visitorID] = nil }
            case .agent(let agent):
                state.appAgents[agent.appID]?[connection.id] = nil
                if state.appAgents[agent.appID]?.isEmpty == true { state.appAgents[agent.appID] = nil }
                state.agents[agent.agentID]?[connection.id] = nil
                if state.agents[agent.agentID]?.isEmpty == true { state.agents[agent.agentID] = nil }
            case .operator:
                break
            }
            for conversation in Array(state.subscribers.keys) where state.subscribers[conversation]?[connection.id] != nil {
                state.subscribers[conversation]![connection.id] = nil
                if state.subscribers[conversation]!.isEmpty { state.subscribers[conversation] = nil }
            }
        }
        connection.finish()
    }

    /// Revokes every connection of an agent (password changed, account disabled).
    func revoke(agent: AgentID, reason: String) {
        let connections = state.withLock { Array(($0.agents[agent] ?? [:]).values) }
        for connection in connections { connection.revoke(reason: reason) }
    }

    /// Revokes the connections opened with one visitor session token (sign-out).
    func revoke(visitorSession tokenHash: String, visitor: VisitorID, reason: String) {
        let connections = state.withLock { Array(($0.visitors[visitor] ?? [:]).values) }
        for connection in connections {
            if case .visitor(let caller) = connection.caller, caller.tokenHash == tokenHash { connection.revoke(reason: reason) }
        }
    }

    /// Revokes the connections opened with one agent session (logout).
    func revoke(session tokenHash: String, agent: AgentID, reason: String) {
        let connections = state.withLock { Array(($0.agents[agent] ?? [:]).values) }
        for connection in connections {
            if case .agent(let caller) = connection.caller, caller.tokenHash == tokenHash { connection.revoke(reason: reason) }
        }
    }

    func subscribe(_ connection: RealtimeConnection, to conversation: ConversationID) {
        state.withLock { $0.subscribers[conversation, default: [:]][connection.id] = connection }
    }

    func unsubscribe(_ connection: RealtimeConnection, from conversation: ConversationID) {
        state.withLock { state in
            state.subscribers[conversation]?[connection.id] = nil
            if state.subscribers[conversation]?.isEmpty == true { state.subscribers[conversation] = nil }
        }
    }

    // MARK: Publishing

    /// Tells everyone concerned about a commit: subscribers get the events; when the state changed,
    /// the visitor and the app's agents get the conversation's summary; long-poll waiters wake.
    func publish(_ commit: ConversationCommit) {
        guard !commit.events.isEmpty, !commit.isDuplicate else { return }
        let conversation = commit.conversation
        // A move, or a callback request's step (a confirmation, a due time leave the state as it is):
        // every desk and the visitor's sockets get the new summary.
        let stateChanged = commit.events.contains {
            switch $0.body {
            case .stateChanged, .callback: true
            default: false
            }
        }
        // A visitor writing in a queued conversation changes how long it has waited for an answer
        // (the inbox's "waiting" view and counts), and no agent follows it yet: every desk gets the summary.
        let waitingChanged = conversation.state == .queued && Self.holdsVisitorMessage(commit.events)
        let (subscribers, visitors, agents, waiters) = state.withLock { state in
            (
                Array((state.subscribers[conversation.id] ?? [:]).values),
                stateChanged ? Array((state.visitors[conversation.visitorID] ?? [:]).values) : [],
                stateChanged || waitingChanged ? Array((state.appAgents[conversation.appID] ?? [:]).values) : [],
                state.waiters.removeValue(forKey: conversation.id).map { Array($0.values) } ?? []
            )
        }
        deliver(of: conversation.id, to: subscribers, waking: waiters) { try OutgoingEvent.frames(of: commit) }
        let summaries = visitors + agents
        if !summaries.isEmpty {
            let item: RealtimeConnection.Item = (try? ParleyJSON.encode(ServerFrame.conversation(conversation)))
                .map { .text(String(decoding: $0, as: UTF8.self)) } ?? .frame(.conversation(conversation))
            for connection in summaries { connection.enqueue(item) }
        }
    }

    /// Whether `events` hold a message the visitor wrote.
    static func holdsVisitorMessage(_ events: [ConversationEvent]) -> Bool {
        events.contains { $0.author.role == .visitor && $0.message != nil }
    }

    /// Sends a conversation's summary to every agent connection of its app (another node's visitor
    /// wrote in a queued conversation; see ``publish(_:)``).
    func publishSummaryToAgents(_ conversation: Conversation) {
        sendToAgents(of: conversation.appID, .conversation(conversation))
    }

    /// Tells a conversation's subscribers and long-poll waiters of events that did not change its
    /// state (another node's, carried in its notice with their stored JSON).
    func publish(events: [ConversationEvent], encoded: [String], of conversation: ConversationID) {
        guard !events.isEmpty, encoded.count == events.count else { return }
        let (subscribers, waiters) = state.withLock { state in
            (Array((state.subscribers[conversation] ?? [:]).values), state.waiters.removeValue(forKey: conversation).map { Array($0.values) } ?? [])
        }
        deliver(of: conversation, to: subscribers, waking: waiters) {
            zip(events, encoded).map { OutgoingEvent(seq: $0.seq, frame: FrameText.event(encodedEvent: $1)) }
        }
    }

    /// Hands events to subscribers, encoded once (not once per socket), and wakes waiters.
    private func deliver(
        of conversation: ConversationID, to subscribers: [RealtimeConnection], waking waiters: [AsyncStream<Void>.Continuation],
        frames makeFrames: () throws -> [OutgoingEvent]
    ) {
        if !subscribers.isEmpty {
            do {
                let frames = try makeFrames()
                for connection in subscribers { connection.enqueue(.events(conversation, frames)) }
            } catch {
                // Cannot happen for events that were just stored; if it did, resubscribing replays them.
                for connection in subscribers { connection.abort() }
            }
        }
        for waiter in waiters {
            waiter.yield()
            waiter.finish()
        }
    }

    /// Sends an internal note to the app's agent connections subscribed to its conversation, and to
    /// nobody else: a visitor's connection never gets one, subscribed or not.
    func publish(_ note: InternalNote, app: AppID) {
        sendToAgents(.note(note), subscribedTo: note.conversationID, app: app)
    }

    /// Sends a conversation's new triage to every agent connection of the app (it moves the
    /// conversation between inbox views, as a state change does); never to a visitor.
    func publish(_ triage: Triage, app: AppID) {
        sendToAgents(of: app, .triage(triage))
    }

    /// Sends a conversation's rating and form answers to every agent connection of its app.
    func publish(_ answers: ConversationAnswers, app: AppID) {
        sendToAgents(of: app, .answers(answers))
    }

    /// Tells every agent connection of the app that an agent of its team changed.
    func publishTeamChange(_ agent: AgentID, app: AppID) {
        sendToAgents(of: app, .team(TeamChange(agentID: agent)))
    }

    /// Sends the app's tag list to every agent connection of the app.
    func publish(_ tags: TagList, app: AppID) {
        sendToAgents(of: app, .tags(tags))
    }

    private func sendToAgents(of app: AppID, _ frame: ServerFrame) {
        let connections = state.withLock { Array(($0.appAgents[app] ?? [:]).values) }
        for connection in connections { connection.enqueue(.frame(frame)) }
    }

    private func sendToAgents(_ frame: ServerFrame, subscribedTo conversation: ConversationID, app: AppID) {
        let connections = state.withLock { Array(($0.subscribers[conversation] ?? [:]).values) }
        for connection in connections {
            guard case .agent(let agent) = connection.caller, agent.appID == app else { continue }
            connection.enqueue(.frame(frame))
        }
    }

    /// Sends a live frame to every connection of a visitor.
    func send(_ frame: ServerFrame, toVisitor visitor: VisitorID) {
        let connections = state.withLock { Array(($0.visitors[visitor] ?? [:]).values) }
        for connection in connections { connection.enqueue(.frame(frame)) }
    }

    /// Sends a live frame to the subscribers of a conversation, but the one that caused it.
    func send(_ frame: ServerFrame, toSubscribersOf conversation: ConversationID, except: UInt64? = nil) {
        let connections = state.withLock { Array(($0.subscribers[conversation] ?? [:]).values) }
        for connection in connections where connection.id != except { connection.enqueue(.frame(frame)) }
    }

    /// Sends a live frame to every connection of an agent.
    func send(_ frame: ServerFrame, toAgent agent: AgentID) {
        let connections = state.withLock { Array(($0.agents[agent] ?? [:]).values) }
        for connection in connections { connection.enqueue(.frame(frame)) }
    }

    // MARK: Other nodes

    /// True when a connection or waiter here may want a commit of `conversation` made on another
    /// node: its subscribers and long-poll waiters, the app's agents, or any visitor (a summary goes
    /// to the conversation's visitor, whose id the notice does not carry).
    func caresAbout(_ conversation: ConversationID, app: AppID) -> Bool {
        state.withLock { state in
            state.subscribers[conversation] != nil || state.waiters[conversation] != nil
                || state.appAgents[app] != nil || !state.visitors.isEmpty
        }
    }

    /// True when an agent of `app` has a connection here (another node's note may concern them).
    func hasAgents(of app: AppID) -> Bool {
        state.withLock { $0.appAgents[app] != nil }
    }

    /// Notices from other nodes may have been missed: every subscription here catches up from its
    /// own cursor, and every long-poll waiter wakes to look again.
    func resynchronize() {
        let (subscriptions, waiters) = state.withLock { state in
            defer { state.waiters = [:] }
            return (
                state.subscribers.flatMap { conversation, connections in connections.values.map { ($0, conversation) } },
                state.waiters.values.flatMap(\.values)
            )
        }
        for (connection, conversation) in subscriptions { connection.enqueue(.catchUp(conversation)) }
        for waiter in waiters {
            waiter.yield()
            waiter.finish()
        }
    }

    // MARK: Long-poll

    /// Runs `check`; when it finds nothing, waits until the conversation gets an event or the
    /// timeout passes, then runs `check` once more. The waiter is registered before the first
    /// check, so an event committed in between is never missed.
    func waitForEvents<T: Sendable>(
        in conversation: ConversationID, timeout: Duration, check: @Sendable () async throws -> T, isEmpty: (T) -> Bool
    ) async throws -> T {
        let id = makeID()
        let (stream, continuation) = AsyncStream.makeStream(of: Void.self)
        state.withLock { $0.waiters[conversation, default: [:]][id] = continuation }
        defer {
            state.withLock { state in
                state.waiters[conversation]?[id] = nil
                if state.waiters[conversation]?.isEmpty == true { state.waiters[conversation] = nil }
            }
        }
        let first = try await check()
        guard isEmpty(first) else { return first }
        await withTaskGroup(of: Void.self) { group in
            group.addTask {
                for await _ in stream { return }
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
            }
            await group.next()
            group.cancelAll()
            continuation.finish()
        }
        return try await check()
    }
}
