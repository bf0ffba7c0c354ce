import Foundation
import Logging
import ParleyCore
import ParleyStore

/// Drives ``RoutingState``: feeds it what happens, commits the assignments and requeues it decides,
/// tells visitors their queue positions, and runs the grace timers.
///
/// With several nodes on one database (decision 0006) the state is a replica: other nodes' moves
/// arrive through ``refresh(_:app:)``, their agents' connections through ``remotePresence(_:)``, and
/// ``reconcile()`` puts it back in line with the database now and then. The store is the arbiter: it
/// refuses an assignment to a conversation no longer queued or to an agent at capacity, and the
/// engine then reads back what is true.
actor RoutingEngine {
    private var state: RoutingState
    private let store: any ParleyStore
    private let hub: Hub
    /// Commits routing's decisions (assignments, requeues, transfers) like any other change.
    private let committer: ConversationCommitter
    private let clock: any WallClock
    private let logger: Logger
    private var graceTimers: [AgentID: Task<Void, Never>] = [:]
    /// Each live callback request's next deadline: an offer's expiry, a scheduled request's time.
    private var callbackTimers: [ConversationID: (deadline: CallbackDeadline, task: Task<Void, Never>)] = [:]
    /// App of each known agent, so a committed assignment names the right app.
    private var agentApps: [AgentID: (app: AppID, name: String)] = [:]
    /// For each conversation routing has seen: the `lastSeq` of the newest state it applied (a read
    /// that is older is skipped), and the tick when it did (``reconcile()`` ends only conversations
    /// untouched since before its read).
    private var known: [ConversationID: (seq: Int64, tick: UInt64)] = [:]
    private var tick: UInt64 = 0
    /// Called when the number of this node's connections of an agent changed (to tell other nodes).
    private var localPresenceChanged: (@Sendable (AgentID) -> Void)?
    /// Told when what `GET /v1/team` shows of an agent may have changed.
    private var teamChanged: (@Sendable (AppID, AgentID) -> Void)?
    /// The other nodes' connection counts as last told, to see whose changed.
    private var lastRemoteConnections: [AgentID: Int] = [:]

    init(store: any ParleyStore, hub: Hub, committer: ConversationCommitter, clock: any WallClock, graceDuration: TimeInterval, logger: Logger) {
        self.state = RoutingState(graceDuration: graceDuration)
        self.store = store
        self.hub = hub
        self.committer = committer
        self.clock = clock
        self.logger = logger
    }

    /// Loads agents and active conversations from the store (at start, after a restart).
    func start() async throws {
        let now = clock.now()
        for agent in try await store.allAgents() {
            agentApps[agent.id] = (agent.appID, agent.name)
            await run(state.agentUpdated(profile(agent), now: now))
        }
        for active in try await store.activeConversations() {
            await apply(active, force: true)
        }
    }

    /// Asks to be told when this node's connection count of an agent changes.
    func onLocalPresenceChanged(_ handler: @escaping @Sendable (AgentID) -> Void) {
        localPresenceChanged = handler
    }

    /// Asks to be told when an agent's availability, profile or connections (on any node) change.
    func onTeamChanged(_ handler: @escaping @Sendable (AppID, AgentID) -> Void) {
        teamChanged = handler
    }

    private func tellTeam(_ id: AgentID) {
        if let app = agentApps[id]?.app { teamChanged?(app, id) }
    }

    /// Cancels the timers.
    func stop() {
        for timer in graceTimers.values { timer.cancel() }
        graceTimers = [:]
        for timer in callbackTimers.values { timer.task.cancel() }
        callbackTimers = [:]
    }

    // MARK: Inputs

    func position(of conversation: ConversationID) -> Int? { state.position(of: conversation) }

    /// A commit on this node moved a conversation (``ConversationCommitter``): routing follows it,
    /// unless it already stands there (routing's own decisions) or routing applied something newer.
    func committed(_ commit: ConversationCommit) async {
        await apply(ActiveConversation(conversation: commit.conversation, queueRank: commit.queueRank), force: false)
    }

    func agentUpdated(_ agent: Agent) async {
        agentApps[agent.id] = (agent.appID, agent.name)
        await run(state.agentUpdated(profile(agent), now: clock.now()))
        tellTeam(agent.id)
    }

    func agentConnected(_ id: AgentID) async {
        await run(state.agentConnected(id, now: clock.now()))
        localPresenceChanged?(id)
        tellTeam(id)
    }

    func agentDisconnected(_ id: AgentID) async {
        await run(state.agentDisconnected(id, now: clock.now()))
        localPresenceChanged?(id)
        tellTeam(id)
    }

    /// How many realtime connections an agent has open on this node.
    func localConnections(of id: AgentID) -> Int { state.localConnections(of: id) }

    /// Online agents of a queue, and how many conversations wait in it (for the availability report).
    func availability(of queue: QueueID) -> (agentsOnline: Int, waiting: Int) {
        (state.agentsOnline(in: queue), state.waiting(in: queue))
    }

    /// Conversations waiting in every queue, and agents present (for `/metrics`).
    func summary() -> (waiting: Int, agentsPresent: Int) { (state.totalWaiting, state.agentsPresent) }

    /// An agent's profile as routing knows it.
    func profile(of id: AgentID) -> RoutingState.AgentProfile? { state.profile(of: id) }

    // MARK: Other nodes (decision 0006)

    /// The connections each agent has open on the other live nodes.
    func remotePresence(_ connections: [AgentID: Int]) async {
        await run(state.remotePresence(connections, now: clock.now()))
        let changed = Set(connections.keys).union(lastRemoteConnections.keys).filter { connections[$0] ?? 0 != lastRemoteConnections[$0] ?? 0 }
        lastRemoteConnections = connections
        for id in changed.sorted() { tellTeam(id) }
    }

    /// Another node moved a conversation (opened, assigned, requeued, transferred, ended): reads
    /// where it stands now and follows, unless routing already applied something newer.
    func refresh(_ id: ConversationID, app: AppID) async {
        guard let stored = try? await store.conversationAndRank(id, app: app) else { return }
        await apply(stored, force: false)
    }

    /// Conversations now belong to another visitor (moved at a verified sign-in): routing keeps their
    /// places and tells queue positions to the new visitor.
    func visitorChanged(_ ids: [ConversationID], to visitor: VisitorID) {
        for id in ids { state.visitorChanged(id, to: visitor) }
    }

    /// Reloads agents whose profile changed on another node (availability, queues, capacity).
    func refreshAgent(_ id: AgentID) async {
        guard let agent = try? await store.agent(id)?.agent else { return }
        await agentUpdated(agent)
    }

    /// Puts the whole state back in line with the database: every agent's profile and every active
    /// conversation. Repairs whatever a missed notice or a race between nodes left behind.
    func reconcile() async {
        let start = tick
        tick += 1
        guard let agents = try? await store.allAgents(), let active = try? await store.activeConversations() else { return }
        for agent in agents where agentApps[agent.id]?.name != agent.name || state.profile(of: agent.id) != profile(agent) {
            await agentUpdated(agent)
        }
        let stillActive = Set(active.map(\.conversation.id))
        for stored in active { await apply(stored, force: false) }
        // Active here, not in the database, and untouched since before the read: it ended elsewhere.
        for id in state.activeConversations.subtracting(stillActive) where (known[id]?.tick ?? 0) < start {
            known[id] = nil
            await run(state.conversationEnded(id, now: clock.now()))
        }
        known = known.filter { stillActive.contains($0.key) || $0.value.tick >= start }
    }

    /// Applies a conversation as the store holds it. Unless forced, a state no newer than the one
    /// applied last is skipped: an assignment this node has decided but not yet committed keeps its slot.
    private func apply(_ stored: ActiveConversation, force: Bool) async {
        let conversation = stored.conversation
        if !force, let seen = known[conversation.id], seen.seq >= conversation.lastSeq { return }
        record(conversation)
        followCallback(conversation)
        let now = clock.now()
        switch (conversation.state, conversation.agentID) {
        case (.queued, _) where conversation.callback?.status == .scheduled:
            // A scheduled callback request is held out of its queue until its time (its timer
            // commits `due`, which brings it back here as waiting, at its rank).
            guard force || state.placement(of: conversation.id) != nil else { return }
            await run(state.conversationEnded(conversation.id, now: now))
        case (.assigned, let agent?):
            guard force || state.placement(of: conversation.id) != .assigned(agent) else { return }
            await run(state.conversationAssigned(conversation.id, to: agent, queue: conversation.queueID, visitor: conversation.visitorID, now: now))
        case (.queued, _):
            let rank = stored.queueRank ?? state.tailRank(now: now)
            guard force || state.placement(of: conversation.id) != .queued(conversation.queueID, rank: rank) else { return }
            await run(state.conversationQueued(conversation.id, queue: conversation.queueID, visitor: conversation.visitorID, rank: rank, now: now))
        default:
            guard force || state.placement(of: conversation.id) != nil else { return }
            await run(state.conversationEnded(conversation.id, now: now))
        }
    }

    /// Keeps one timer per live callback request, at its next deadline (decision 0019). Every node
    /// keeps them; the store applies the first to fire, and the others change nothing.
    private func followCallback(_ conversation: Conversation) {
        let deadline = conversation.callback.flatMap(CallbackDeadline.init)
        guard callbackTimers[conversation.id]?.deadline != deadline else { return }
        callbackTimers.removeValue(forKey: conversation.id)?.task.cancel()
        guard let deadline else { return }
        let id = conversation.id, app = conversation.appID
        let task = Task { [weak self, clock] in
            try? await clock.sleep(until: deadline.at)
            guard !Task.isCancelled else { return }
            await self?.callbackDeadlinePassed(id, app: app, deadline: deadline)
        }
        callbackTimers[id] = (deadline, task)
    }

    private func callbackDeadlinePassed(_ id: ConversationID, app: AppID, deadline: CallbackDeadline) async {
        guard callbackTimers[id]?.deadline == deadline else { return }
        callbackTimers[id] = nil
        do {
            try await committer.commit(.callback(.init(conversationID: id, appID: app, by: .system, step: deadline.step, at: clock.now())))
        } catch {
            // Another node, or the visitor, moved it first: the store holds what is true.
            logger.debug("callback deadline change refused", metadata: ["parley.conversation": "\(id)", "error": "\(error)"])
            await resynchronize(id, app: app)
        }
    }

    private func record(_ conversation: Conversation) {
        tick += 1
        known[conversation.id] = (max(known[conversation.id]?.seq ?? 0, conversation.lastSeq), tick)
    }

    /// An agent takes a waiting conversation by hand.
    /// - Throws: 409 when the agent is at capacity or the conversation is not waiting.
    func accept(_ id: ConversationID, by agent: AgentID) async throws {
        guard let actions = state.accept(id, by: agent, now: clock.now()) else {
            throw APIError.conflict("cannot_accept", "the conversation is not waiting, or you are at capacity")
        }
        await run(actions)
    }

    /// Hands an assigned conversation to another agent: routing reserves the slot, the store
    /// commits (and re-checks who may transfer), the hub tells everyone.
    /// - Throws: 409 `cannot_transfer` with the reason, or the store's refusal.
    func transfer(_ conversation: Conversation, by caller: AgentCaller, to agent: Agent) async throws -> ConversationCommit {
        let followUp: [RoutingState.Action]
        switch state.transfer(conversation.id, to: agent.id, now: clock.now()) {
        case .success(let actions):
            followUp = actions
        case .failure(let refusal):
            let reason = switch refusal {
            case .notAssigned: "the conversation is not assigned"
            case .alreadyTheirs: "the conversation is already assigned to that agent"
            case .unavailable: "\(agent.name) is not available (offline, disabled or not connected)"
            case .atCapacity: "\(agent.name) is at capacity"
            }
            throw APIError.conflict("cannot_transfer", reason)
        }
        do {
            let commit = try await committer.commit(.transfer(.init(
                conversationID: conversation.id, appID: conversation.appID, by: .agent(caller.agentID, name: caller.name),
                byAdmin: caller.role == .admin, target: .agent(.agent(agent.id, name: agent.name)), at: clock.now())))
            await run(followUp)
            logger.info("conversation transferred", metadata: ["parley.conversation": "\(conversation.id)", "parley.agent": "\(agent.id)"])
            return commit
        } catch {
            await resynchronize(conversation.id, app: conversation.appID)
            throw error
        }
    }

    /// Sends an assigned conversation to the head of a queue, where routing offers it again.
    func transfer(_ conversation: Conversation, by caller: AgentCaller, to queue: QueueID) async throws -> ConversationCommit {
        let rank = state.headRank(of: queue, now: clock.now())
        // Routing places it at the head of the queue when the committer reports the move.
        let commit = try await committer.commit(.transfer(.init(
            conversationID: conversation.id, appID: conversation.appID, by: .agent(caller.agentID, name: caller.name),
            byAdmin: caller.role == .admin, target: .queue(queue, rank: rank), at: clock.now())))
        logger.info("conversation transferred", metadata: ["parley.conversation": "\(conversation.id)", "parley.queue": "\(queue)"])
        return commit
    }

    /// The team as routing sees it: each agent's load and connections, each queue's waiting count.
    func load(agents: [AgentID], queues: [QueueID]) -> (agents: [AgentID: (active: Int, connections: Int)], waiting: [QueueID: Int]) {
        (Dictionary(uniqueKeysWithValues: agents.map { ($0, (state.load(of: $0), state.connections(of: $0))) }),
         Dictionary(uniqueKeysWithValues: queues.map { ($0, state.waiting(in: $0)) }))
    }

    /// Puts routing back in line with what the store holds for a conversation (after a refused
    /// commit: another node got there first, or the visitor cancelled meanwhile).
    private func resynchronize(_ id: ConversationID, app: AppID) async {
        guard let stored = try? await store.conversationAndRank(id, app: app) else {
            await run(state.conversationEnded(id, now: clock.now()))
            return
        }
        await apply(stored, force: true)
    }

    // MARK: Actions

    private func run(_ actions: [RoutingState.Action]) async {
        for action in actions {
            switch action {
            case .assign(let conversation, let agent):
                await assign(conversation, to: agent)
            case .announcePosition(let conversation, let visitor, let position):
                hub.send(.queuePosition(.init(conversationID: conversation, position: position)), toVisitor: visitor)
            case .scheduleGrace(let agent, let deadline):
                graceTimers[agent]?.cancel()
                graceTimers[agent] = Task { [weak self] in
                    try? await self?.clock.sleep(until: deadline)
                    guard !Task.isCancelled else { return }
                    await self?.graceExpired(agent)
                }
            case .cancelGrace(let agent):
                graceTimers[agent]?.cancel()
                graceTimers[agent] = nil
            case .requeue(let conversation, let agent, let rank):
                await requeue(conversation, from: agent, rank: rank)
            }
        }
    }

    private func graceExpired(_ agent: AgentID) async {
        graceTimers[agent] = nil
        await run(state.graceExpired(agent: agent, now: clock.now()))
    }

    private func assign(_ id: ConversationID, to agent: AgentID) async {
        guard let (app, name) = agentApps[agent] else { return }
        do {
            try await committer.commit(.assign(.init(conversationID: id, appID: app, agent: .agent(agent, name: name), at: clock.now())))
            logger.debug("conversation assigned", metadata: ["parley.conversation": "\(id)", "parley.agent": "\(agent)"])
        } catch {
            // The visitor cancelled meanwhile, another node assigned it first, or the agent is full
            // with conversations another node gave them. Routing reads back what is true; for a full
            // agent it first reloads every load, so the same pick is not tried again at once.
            logger.debug("assignment refused", metadata: ["parley.conversation": "\(id)", "error": "\(error)"])
            if (error as? StoreError)?.isAtCapacity == true { await reconcile() }
            await resynchronize(id, app: app)
        }
    }

    private func requeue(_ id: ConversationID, from agent: AgentID, rank: Int64) async {
        guard let (app, name) = agentApps[agent] else { return }
        do {
            try await committer.commit(.requeue(.init(conversationID: id, appID: app, agent: .agent(agent, name: name), queueRank: rank, at: clock.now())))
            logger.info("conversation requeued after agent grace", metadata: ["parley.conversation": "\(id)", "parley.agent": "\(agent)"])
        } catch {
            // It ended meanwhile, or another node requeued it first: follow what the store holds.
            await resynchronize(id, app: app)
        }
    }

    private func profile(_ agent: Agent) -> RoutingState.AgentProfile {
        .init(id: agent.id, queueIDs: agent.queueIDs, capacity: agent.capacity, availability: agent.availability, isDisabled: agent.isDisabled)
    }
}
