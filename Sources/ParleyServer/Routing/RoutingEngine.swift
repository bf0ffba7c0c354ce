import Foundation
import Logging
import ParleyCore
import ParleyStore

/// Drives ``RoutingState``: feeds it what happens, commits the assignments and requeues it decides,
/// tells visitors their queue positions, and runs the grace timers.
actor RoutingEngine {
    private var state: RoutingState
    private let store: any ParleyStore
    private let hub: Hub
    private let logger: Logger
    private var graceTimers: [AgentID: Task<Void, Never>] = [:]
    /// App of each known agent, so a committed assignment names the right app.
    private var agentApps: [AgentID: (app: AppID, name: String)] = [:]

    init(store: any ParleyStore, hub: Hub, graceDuration: TimeInterval, logger: Logger) {
        self.state = RoutingState(graceDuration: graceDuration)
        self.store = store
        self.hub = hub
        self.logger = logger
    }

    /// Loads agents and active conversations from the store (at start, after a restart).
    func start() async throws {
        let now = Date()
        for agent in try await store.allAgents() {
            agentApps[agent.id] = (agent.appID, agent.name)
            await run(state.agentUpdated(profile(agent), now: now))
        }
        for active in try await store.activeConversations() {
            let conversation = active.conversation
            if conversation.state == .assigned, let agent = conversation.agentID {
                await run(state.conversationAssigned(conversation.id, to: agent, queue: conversation.queueID, visitor: conversation.visitorID, now: now))
            } else if conversation.state == .queued {
                await run(state.conversationQueued(conversation.id, queue: conversation.queueID, visitor: conversation.visitorID,
                                                  rank: active.queueRank ?? state.tailRank(now: now), now: now))
            }
        }
    }

    /// Cancels the timers.
    func stop() {
        for timer in graceTimers.values { timer.cancel() }
        graceTimers = [:]
    }

    // MARK: Inputs

    /// A rank behind everything waiting now.
    func tailRank() -> Int64 { state.tailRank(now: Date()) }

    func position(of conversation: ConversationID) -> Int? { state.position(of: conversation) }

    func conversationQueued(_ conversation: Conversation, rank: Int64) async {
        await run(state.conversationQueued(conversation.id, queue: conversation.queueID, visitor: conversation.visitorID, rank: rank, now: Date()))
    }

    func conversationEnded(_ id: ConversationID) async {
        await run(state.conversationEnded(id, now: Date()))
    }

    func agentUpdated(_ agent: Agent) async {
        agentApps[agent.id] = (agent.appID, agent.name)
        await run(state.agentUpdated(profile(agent), now: Date()))
    }

    func agentConnected(_ id: AgentID) async {
        await run(state.agentConnected(id, now: Date()))
    }

    func agentDisconnected(_ id: AgentID) async {
        await run(state.agentDisconnected(id, now: Date()))
    }

    /// An agent takes a waiting conversation by hand.
    /// - Throws: 409 when the agent is at capacity or the conversation is not waiting.
    func accept(_ id: ConversationID, by agent: AgentID) async throws {
        guard let actions = state.accept(id, by: agent, now: Date()) else {
            throw APIError.conflict("cannot_accept", "the conversation is not waiting, or you are at capacity")
        }
        await run(actions)
    }

    /// Hands an assigned conversation to another agent: routing reserves the slot, the store
    /// commits (and re-checks who may transfer), the hub tells everyone.
    /// - Throws: 409 `cannot_transfer` with the reason, or the store's refusal.
    func transfer(_ conversation: Conversation, by caller: AgentCaller, to agent: Agent) async throws -> ConversationCommit {
        let followUp: [RoutingState.Action]
        switch state.transfer(conversation.id, to: agent.id, now: Date()) {
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
            let commit = try await store.commit(.transfer(.init(
                conversationID: conversation.id, appID: conversation.appID, by: .agent(caller.agentID, name: caller.name),
                byAdmin: caller.role == .admin, target: .agent(.agent(agent.id, name: agent.name)), at: Date())))
            hub.publish(commit)
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
        let rank = state.headRank(of: queue, now: Date())
        let commit = try await store.commit(.transfer(.init(
            conversationID: conversation.id, appID: conversation.appID, by: .agent(caller.agentID, name: caller.name),
            byAdmin: caller.role == .admin, target: .queue(queue, rank: rank), at: Date())))
        hub.publish(commit)
        await run(state.conversationQueued(conversation.id, queue: queue, visitor: conversation.visitorID, rank: rank, now: Date()))
        logger.info("conversation transferred", metadata: ["parley.conversation": "\(conversation.id)", "parley.queue": "\(queue)"])
        return commit
    }

    /// The team as routing sees it: each agent's load and connections, each queue's waiting count.
    func load(agents: [AgentID], queues: [QueueID]) -> (agents: [AgentID: (active: Int, connections: Int)], waiting: [QueueID: Int]) {
        (Dictionary(uniqueKeysWithValues: agents.map { ($0, (state.load(of: $0), state.connections(of: $0))) }),
         Dictionary(uniqueKeysWithValues: queues.map { ($0, state.waiting(in: $0)) }))
    }

    /// Puts routing back in line with what the store holds for a conversation (after a refused commit).
    private func resynchronize(_ id: ConversationID, app: AppID) async {
        guard let conversation = try? await store.conversation(id, app: app) else { return }
        switch (conversation.state, conversation.agentID) {
        case (.assigned, let agent?):
            await run(state.conversationAssigned(id, to: agent, queue: conversation.queueID, visitor: conversation.visitorID, now: Date()))
        case (.queued, _):
            await run(state.conversationQueued(id, queue: conversation.queueID, visitor: conversation.visitorID, rank: state.tailRank(now: Date()), now: Date()))
        default:
            await run(state.conversationEnded(id, now: Date()))
        }
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
                    try? await Task.sleep(for: .seconds(max(0, deadline.timeIntervalSinceNow)))
                    guard !Task.isCancelled else { return }
                    await self?.graceExpired(agent)
                }
            case .requeue(let conversation, let agent, let rank):
                await requeue(conversation, from: agent, rank: rank)
            }
        }
    }

    private func graceExpired(_ agent: AgentID) async {
        graceTimers[agent] = nil
        await run(state.graceExpired(agent: agent, now: Date()))
    }

    private func assign(_ id: ConversationID, to agent: AgentID) async {
        guard let (app, name) = agentApps[agent] else { return }
        do {
            let commit = try await store.commit(.assign(.init(conversationID: id, appID: app, agent: .agent(agent, name: name), at: Date())))
            hub.publish(commit)
            logger.debug("conversation assigned", metadata: ["parley.conversation": "\(id)", "parley.agent": "\(agent)"])
        } catch {
            // Usually the visitor cancelled meanwhile. If the conversation still waits (a passing
            // store error), it goes back to the head; otherwise routing forgets it. Either way the
            // agent's slot is released.
            let current = try? await store.conversation(id, app: app)
            logger.debug("assignment refused", metadata: ["parley.conversation": "\(id)", "error": "\(error)"])
            await run(state.assignmentFailed(id, agent: agent, stillWaiting: current?.state == .queued, now: Date()))
        }
    }

    private func requeue(_ id: ConversationID, from agent: AgentID, rank: Int64) async {
        guard let (app, name) = agentApps[agent] else { return }
        do {
            let commit = try await store.commit(.requeue(.init(conversationID: id, appID: app, agent: .agent(agent, name: name), queueRank: rank, at: Date())))
            hub.publish(commit)
            logger.info("conversation requeued after agent grace", metadata: ["parley.conversation": "\(id)", "parley.agent": "\(agent)"])
        } catch {
            // The conversation ended meanwhile; routing must forget it.
            await run(state.conversationEnded(id, now: Date()))
        }
    }

    private func profile(_ agent: Agent) -> RoutingState.AgentProfile {
        .init(id: agent.id, queueIDs: agent.queueIDs, capacity: agent.capacity, availability: agent.availability, isDisabled: agent.isDisabled)
    }
}
