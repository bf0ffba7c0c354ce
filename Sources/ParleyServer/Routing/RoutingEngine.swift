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
