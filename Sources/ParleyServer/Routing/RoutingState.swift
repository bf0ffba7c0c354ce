import Foundation
import ParleyCore

/// Who gets which queued conversation, as a pure state machine: inputs in, actions out, no I/O.
///
/// Rules (issue 2, docs/protocol.md "Routing"):
/// - A queued conversation goes to a *routable* agent of its queue: online, connected, enabled and
///   under capacity. Among them: least loaded first, then the one whose last assignment is oldest
///   (longest idle), then the smallest id, so the choice is deterministic.
/// - Waiting conversations are served in rank order (oldest first); every waiting visitor is told
///   their 1-based position whenever it changes.
/// - An agent who is no longer *present* (offline, or with no open connection on any node) keeps
///   their conversations for `graceDuration`; then they go back to the head of their queues.
/// - With several nodes, each node's state mirrors the database (decision 0006): the connections
///   other nodes report come in through ``remotePresence(_:now:)``, other nodes' assignments as
///   ``conversationAssigned(_:to:queue:visitor:now:)``. The store re-checks capacity, so a decision
///   made on a stale view is refused, never applied.
/// The engine (``RoutingEngine``) performs the actions and reports back failures.
public struct RoutingState: Sendable {
    /// What the engine must do.
    public enum Action: Hashable, Sendable {
        /// Commit the assignment of a conversation to an agent.
        case assign(ConversationID, to: AgentID)
        /// Tell a waiting visitor their new position.
        case announcePosition(ConversationID, visitor: VisitorID, position: Int)
        /// Call ``graceExpired(agent:now:)`` at the deadline.
        case scheduleGrace(AgentID, deadline: Date)
        /// The agent is back before the deadline: the grace timer can go.
        case cancelGrace(AgentID)
        /// Commit the return of an agent's conversation to the head of its queue at `rank`.
        case requeue(ConversationID, from: AgentID, rank: Int64)
    }

    /// What routing knows of an agent.
    public struct AgentProfile: Hashable, Sendable {
        public var id: AgentID
        public var queueIDs: [QueueID]
        public var capacity: Int
        public var availability: Availability
        public var isDisabled: Bool
        public init(id: AgentID, queueIDs: [QueueID], capacity: Int, availability: Availability, isDisabled: Bool) {
            self.id = id
            self.queueIDs = queueIDs
            self.capacity = capacity
            self.availability = availability
            self.isDisabled = isDisabled
        }
    }

    struct AgentState: Hashable, Sendable {
        var profile: AgentProfile
        var connections = 0
        /// Connections open on other nodes.
        var remoteConnections = 0
        var assigned: Set<ConversationID> = []
        var lastAssignedAt: Date?
        var graceDeadline: Date?

        var isPresent: Bool { connections + remoteConnections > 0 && profile.availability != .offline && !profile.isDisabled }
        var isRoutable: Bool { isPresent && profile.availability == .online && assigned.count < profile.capacity }
    }

    /// A conversation's queue and visitor, kept while it is active so a grace requeue knows where it belongs.
    struct Home: Hashable, Sendable {
        var queue: QueueID
        var visitor: VisitorID
    }

    struct Waiting: Hashable, Sendable {
        var conversationID: ConversationID
        var visitorID: VisitorID
        var rank: Int64
    }

    /// How long an agent keeps conversations after going away.
    public var graceDuration: TimeInterval
    var agents: [AgentID: AgentState] = [:]
    var queues: [QueueID: [Waiting]] = [:]
    var announced: [ConversationID: Int] = [:]
    var owner: [ConversationID: AgentID] = [:]
    var homes: [ConversationID: Home] = [:]
    var lastRank: Int64 = 0

    public init(graceDuration: TimeInterval) {
        self.graceDuration = graceDuration
    }

    // MARK: Queries

    /// The 1-based position of a waiting conversation, or nil when it is not waiting.
    public func position(of conversation: ConversationID) -> Int? {
        for waiting in queues.values {
            if let index = waiting.firstIndex(where: { $0.conversationID == conversation }) { return index + 1 }
        }
        return nil
    }

    /// How many conversations an agent handles now.
    public func load(of agent: AgentID) -> Int { agents[agent]?.assigned.count ?? 0 }

    /// How many realtime connections an agent has open, on every node.
    public func connections(of agent: AgentID) -> Int { agents[agent].map { $0.connections + $0.remoteConnections } ?? 0 }

    /// How many realtime connections an agent has open on this node.
    public func localConnections(of agent: AgentID) -> Int { agents[agent]?.connections ?? 0 }

    /// An agent's profile as routing knows it.
    public func profile(of agent: AgentID) -> AgentProfile? { agents[agent]?.profile }

    /// Where routing believes a conversation stands.
    public enum Placement: Hashable, Sendable {
        case queued(QueueID, rank: Int64)
        case assigned(AgentID)
    }

    /// Where a conversation stands for routing: waiting at a rank, held by an agent, or nil (unknown, ended).
    public func placement(of conversation: ConversationID) -> Placement? {
        if let agent = owner[conversation] { return .assigned(agent) }
        for (queue, waiting) in queues {
            if let entry = waiting.first(where: { $0.conversationID == conversation }) { return .queued(queue, rank: entry.rank) }
        }
        return nil
    }

    /// Every conversation routing holds as waiting or assigned.
    public var activeConversations: Set<ConversationID> {
        Set(owner.keys).union(queues.values.flatMap { $0.map(\.conversationID) })
    }

    /// How many agents of a queue could take a chat now or soon: online, enabled and connected on
    /// some node, whether or not they have a free slot.
    public func agentsOnline(in queue: QueueID) -> Int {
        agents.values.filter { $0.isPresent && $0.profile.availability == .online && $0.profile.queueIDs.contains(queue) }.count
    }

    /// How many conversations wait in a queue.
    public func waiting(in queue: QueueID) -> Int { queues[queue]?.count ?? 0 }

    /// Conversations waiting in every queue.
    public var totalWaiting: Int { queues.values.reduce(0) { $0 + $1.count } }

    /// Agents connected on any node and not offline or disabled.
    public var agentsPresent: Int { agents.values.count(where: \.isPresent) }

    /// The agent a conversation is assigned to, if routing knows it.
    public func owner(of conversation: ConversationID) -> AgentID? { owner[conversation] }

    /// A rank behind everything waiting now (for a new or reopened conversation). Ranks grow with time.
    public mutating func tailRank(now: Date) -> Int64 {
        lastRank = max(lastRank + 1, Self.rank(at: now))
        return lastRank
    }

    /// The rank of a conversation that starts waiting at `date`, behind everything that waited
    /// before: what a reopening message carries, decided without asking routing (ties in a
    /// millisecond are broken by conversation id).
    public static func rank(at date: Date) -> Int64 { Timestamp.millis(date) * 1000 }

    // MARK: Inputs

    /// Loads an agent, or updates its profile (queues, capacity, availability, disabled).
    public mutating func agentUpdated(_ profile: AgentProfile, now: Date) -> [Action] {
        var agent = agents[profile.id] ?? AgentState(profile: profile)
        let oldQueues = agent.profile.queueIDs
        agent.profile = profile
        agents[profile.id] = agent
        return presenceChanged(profile.id, now: now) + dispatch(queues: Set(profile.queueIDs + oldQueues), now: now)
    }

    /// An agent opened a realtime connection.
    public mutating func agentConnected(_ id: AgentID, now: Date) -> [Action] {
        guard agents[id] != nil else { return [] }
        agents[id]!.connections += 1
        return presenceChanged(id, now: now) + dispatch(queues: Set(agents[id]!.profile.queueIDs), now: now)
    }

    /// An agent closed a realtime connection.
    public mutating func agentDisconnected(_ id: AgentID, now: Date) -> [Action] {
        guard agents[id] != nil else { return [] }
        agents[id]!.connections = max(0, agents[id]!.connections - 1)
        return presenceChanged(id, now: now)
    }

    /// The connections each agent has open on the other nodes, as last read from the database
    /// (agents absent from `connections` have none there).
    public mutating func remotePresence(_ connections: [AgentID: Int], now: Date) -> [Action] {
        var actions: [Action] = []
        var affected = Set<QueueID>()
        for id in agents.keys.sorted() {
            let count = max(0, connections[id] ?? 0)
            guard agents[id]!.remoteConnections != count else { continue }
            agents[id]!.remoteConnections = count
            actions += presenceChanged(id, now: now)
            affected.formUnion(agents[id]!.profile.queueIDs)
        }
        return actions + dispatch(queues: affected, now: now)
    }

    /// A conversation now belongs to another visitor (a device's anonymous conversations moved to the
    /// user who signed in): its place stays, and positions go to the new visitor's sockets.
    public mutating func visitorChanged(_ id: ConversationID, to visitor: VisitorID) {
        homes[id]?.visitor = visitor
        for (queue, waiting) in queues {
            if let index = waiting.firstIndex(where: { $0.conversationID == id }) { queues[queue]?[index].visitorID = visitor }
        }
    }

    /// A conversation is (again) waiting in a queue at `rank`.
    public mutating func conversationQueued(_ id: ConversationID, queue: QueueID, visitor: VisitorID, rank: Int64, now: Date) -> [Action] {
        removeFromQueues(id)
        releaseOwner(id)
        homes[id] = Home(queue: queue, visitor: visitor)
        var waiting = queues[queue] ?? []
        let index = waiting.firstIndex(where: { ($0.rank, $0.conversationID) > (rank, id) }) ?? waiting.endIndex
        waiting.insert(Waiting(conversationID: id, visitorID: visitor, rank: rank), at: index)
        queues[queue] = waiting
        lastRank = max(lastRank, rank)
        return dispatch(queues: [queue], now: now)
    }

    /// A conversation known to be assigned (at a restart, or to resynchronise after a refused
    /// commit), so every agent's load is right.
    /// Another node's assignment may displace one this node reserved: the slot it frees takes the
    /// next waiting conversation, and the queue it left announces new positions.
    public mutating func conversationAssigned(_ id: ConversationID, to agent: AgentID, queue: QueueID, visitor: VisitorID, now: Date) -> [Action] {
        var affected = Set<QueueID>()
        if let left = removeFromQueues(id) { affected.insert(left) }
        if let previous = releaseOwner(id), previous != agent, let profile = agents[previous]?.profile { affected.formUnion(profile.queueIDs) }
        homes[id] = Home(queue: queue, visitor: visitor)
        var actions: [Action] = []
        if agents[agent] != nil {
            owner[id] = agent
            agents[agent]!.assigned.insert(id)
            actions = presenceChanged(agent, now: now)
        }
        return actions + dispatch(queues: affected, now: now)
    }

    /// A conversation ended or was cancelled: it leaves its queue or frees its agent's slot.
    public mutating func conversationEnded(_ id: ConversationID, now: Date) -> [Action] {
        let queue = removeFromQueues(id)
        let agent = releaseOwner(id)
        homes[id] = nil
        var affected = Set<QueueID>()
        if let queue { affected.insert(queue) }
        if let agent, let profile = agents[agent]?.profile { affected.formUnion(profile.queueIDs) }
        return dispatch(queues: affected, now: now)
    }

    /// An agent takes a waiting conversation by hand. Returns nil when the agent has no free slot or
    /// the conversation is not waiting.
    public mutating func accept(_ id: ConversationID, by agent: AgentID, now: Date) -> [Action]? {
        guard let state = agents[agent], state.assigned.count < state.profile.capacity, !state.profile.isDisabled,
              let queue = removeFromQueues(id)
        else { return nil }
        assign(id, to: agent, now: now)
        return [.assign(id, to: agent)] + announcements(queue)
    }

    /// Why a transfer to an agent cannot happen.
    public enum TransferRefusal: Error, Hashable, Sendable {
        /// The conversation is not assigned, as far as routing knows.
        case notAssigned
        /// It is assigned to that agent already.
        case alreadyTheirs
        /// The agent is disabled, offline, or has no connection open.
        case unavailable
        /// The agent has no free slot.
        case atCapacity
    }

    /// Hands an assigned conversation to another agent at once, before the store commits it, so
    /// no assignment can take the slot meanwhile. If the commit is refused, the engine puts back
    /// what the store holds (``conversationAssigned(_:to:queue:visitor:now:)``).
    /// Away agents may receive transfers (they are at their desk); offline or disconnected ones may not.
    /// - Returns: the follow-up actions (the previous agent's freed slot may take a waiting conversation).
    public mutating func transfer(_ id: ConversationID, to agent: AgentID, now: Date) -> Result<[Action], TransferRefusal> {
        guard let previous = owner[id] else { return .failure(.notAssigned) }
        guard previous != agent else { return .failure(.alreadyTheirs) }
        guard let target = agents[agent], target.isPresent else { return .failure(.unavailable) }
        guard target.assigned.count < target.profile.capacity else { return .failure(.atCapacity) }
        releaseOwner(id)
        assign(id, to: agent, now: now)
        return .success(dispatch(queues: Set(agents[previous]?.profile.queueIDs ?? []), now: now))
    }

    /// A rank ahead of everything waiting in a queue now (a conversation transferred to it goes first).
    public mutating func headRank(of queue: QueueID, now: Date) -> Int64 {
        (queues[queue]?.first?.rank ?? tailRank(now: now)) - 1
    }

    /// The grace timer of an agent fired. Requeues the agent's conversations when it is still away.
    public mutating func graceExpired(agent id: AgentID, now: Date) -> [Action] {
        guard let agent = agents[id], let deadline = agent.graceDeadline, deadline <= now, !agent.isPresent else { return [] }
        agents[id]!.graceDeadline = nil
        var actions: [Action] = []
        var affected = Set<QueueID>()
        // Oldest first, each placed ahead of everything waiting, so together they keep their order at the head.
        let conversations = agent.assigned.sorted().reversed()
        for conversation in conversations {
            guard let queue = requeueTarget(conversation) else { continue }
            let head = (queues[queue.queue]?.first?.rank ?? tailRank(now: now)) - 1
            releaseOwner(conversation)
            queues[queue.queue, default: []].insert(Waiting(conversationID: conversation, visitorID: queue.visitor, rank: head), at: 0)
            actions.append(.requeue(conversation, from: id, rank: head))
            affected.insert(queue.queue)
        }
        return actions + dispatch(queues: affected, now: now)
    }

    /// Where a requeued conversation goes back to.
    private func requeueTarget(_ id: ConversationID) -> Home? { homes[id] }

    // MARK: Internals

    private mutating func presenceChanged(_ id: AgentID, now: Date) -> [Action] {
        guard let agent = agents[id] else { return [] }
        if agent.isPresent {
            guard agent.graceDeadline != nil else { return [] }
            agents[id]!.graceDeadline = nil
            return [.cancelGrace(id)]
        }
        guard !agent.assigned.isEmpty, agent.graceDeadline == nil else { return [] }
        let deadline = now.addingTimeInterval(graceDuration)
        agents[id]!.graceDeadline = deadline
        return [.scheduleGrace(id, deadline: deadline)]
    }

    private mutating func assign(_ id: ConversationID, to agent: AgentID, now: Date) {
        owner[id] = agent
        agents[agent]!.assigned.insert(id)
        agents[agent]!.lastAssignedAt = now
    }

    @discardableResult
    private mutating func removeFromQueues(_ id: ConversationID) -> QueueID? {
        announced[id] = nil
        for (queue, waiting) in queues {
            if let index = waiting.firstIndex(where: { $0.conversationID == id }) {
                queues[queue]!.remove(at: index)
                return queue
            }
        }
        return nil
    }

    @discardableResult
    private mutating func releaseOwner(_ id: ConversationID) -> AgentID? {
        guard let agent = owner.removeValue(forKey: id) else { return nil }
        agents[agent]?.assigned.remove(id)
        return agent
    }

    /// Assigns waiting conversations of the given queues while someone can take them, oldest first,
    /// then announces the positions that changed.
    private mutating func dispatch(queues affected: Set<QueueID>, now: Date) -> [Action] {
        var actions: [Action] = []
        while true {
            let heads = affected.compactMap { queue in queues[queue]?.first.map { (queue, $0) } }.sorted {
                ($0.1.rank, $0.1.conversationID) < ($1.1.rank, $1.1.conversationID)
            }
            var assignedOne = false
            for (queue, head) in heads {
                guard let agent = bestAgent(for: queue) else { continue }
                queues[queue]!.removeFirst()
                announced[head.conversationID] = nil
                assign(head.conversationID, to: agent, now: now)
                actions.append(.assign(head.conversationID, to: agent))
                assignedOne = true
                break
            }
            if !assignedOne { break }
        }
        for queue in affected.sorted() { actions += announcements(queue) }
        return actions
    }

    private func bestAgent(for queue: QueueID) -> AgentID? {
        agents.values
            .filter { $0.isRoutable && $0.profile.queueIDs.contains(queue) }
            .min { a, b in
                (a.assigned.count, a.lastAssignedAt ?? .distantPast, a.profile.id) < (b.assigned.count, b.lastAssignedAt ?? .distantPast, b.profile.id)
            }?.profile.id
    }

    private mutating func announcements(_ queue: QueueID) -> [Action] {
        var actions: [Action] = []
        for (index, waiting) in (queues[queue] ?? []).enumerated() where announced[waiting.conversationID] != index + 1 {
            announced[waiting.conversationID] = index + 1
            actions.append(.announcePosition(waiting.conversationID, visitor: waiting.visitorID, position: index + 1))
        }
        return actions
    }
}
