import Foundation
import ParleyCore

/// What another parleyd node sharing the database did, told by id (decision 0006).
public enum NodeNotice: Sendable, Hashable {
    /// Another node stored events `seqs` of a conversation. `moved` is true when the commit also
    /// changed where the conversation stands (opened, queued, assigned, transferred, ended), so
    /// routing must look at it again. `events` carries each event's JSON when the notice had room
    /// (never for a move), so the receiver need not read them back; empty otherwise.
    case committed(ConversationID, app: AppID, seqs: ClosedRange<Int64>, moved: Bool, events: [String] = [])
    /// Another node stored internal note `seq` of a conversation.
    case noteAdded(ConversationID, app: AppID, seq: Int64)
    /// Something another node announced that is not stored with a conversation.
    case signal(NodeSignal)
    /// The set of agents' connections on other nodes changed: read it again.
    case presenceChanged
    /// A node stopped without a word (killed, cut off) and was forgotten: notices of its last
    /// commits may never come, so whoever follows conversations must catch up from their cursors.
    case nodeLost
    /// The feed was interrupted and is back: notices may have been missed, so whoever follows
    /// conversations must catch up from their own cursors.
    case resync
}

/// What one node tells the others that no commit carries: live-only events and changes to agents.
public enum NodeSignal: Sendable, Hashable {
    /// Someone started or stopped typing in a conversation.
    case typing(ConversationID, app: AppID, participant: Participant, isTyping: Bool)
    /// An agent's profile changed (availability, queues, capacity, disabled). `sessionsEnded` is
    /// true when every session of the agent was ended too (disabled, password changed).
    case agentChanged(AgentID, sessionsEnded: Bool)
    /// One agent session was ended (logout): its sockets on every node close.
    case sessionEnded(AgentID, tokenHash: String)
    /// One visitor session token was signed out: its sockets on every node close.
    case visitorSessionEnded(VisitorID, tokenHash: String)
    /// An app's masking rules changed: every node reads them again before the next text it masks.
    case maskingChanged(AppID)
    /// A conversation's triage changed: each node reads it and tells the agents following it.
    case triageChanged(ConversationID, app: AppID)
    /// A conversation's rating or form answers changed: each node reads them and tells the app's agents.
    case answersChanged(ConversationID, app: AppID)
    /// An app's tag list changed: each node reads it and tells the app's agents.
    case tagsChanged(AppID)
}

/// A store that several processes share, and that tells each process what the others did.
/// SQLite, opened by one process only, is not one.
public protocol NodeNoticeSource: Sendable {
    /// Notices of other nodes' commits and signals, as they land, until the store closes or the
    /// stream is dropped. Never includes this process's own.
    func nodeNotices() -> AsyncStream<NodeNotice>

    /// Tells every other node a signal. Best effort: a node that misses one is repaired by the
    /// periodic sweep (agents) or does not need it (typing).
    func announce(_ signal: NodeSignal) async throws

    /// Records how many realtime connections `agent` has open on this node (0 removes the row) and
    /// tells the other nodes.
    func setPresence(agent: AgentID, connections: Int) async throws

    /// Marks this node alive now, forgets nodes silent for longer than `staleAfter` (their agents'
    /// connections with them, telling the other nodes ``NodeNotice/nodeLost``), and returns the
    /// connections each agent has open on the other live nodes.
    func heartbeat(staleAfter: TimeInterval) async throws -> NodeHeartbeat
}

/// What a heartbeat found (``NodeNoticeSource/heartbeat(staleAfter:)``).
public struct NodeHeartbeat: Sendable, Hashable {
    /// The realtime connections each agent has open on the other live nodes.
    public var remoteConnections: [AgentID: Int]
    /// How many silent nodes this beat forgot. Their last commits' notices may never come.
    public var nodesLost: Int
    public init(remoteConnections: [AgentID: Int], nodesLost: Int = 0) {
        self.remoteConnections = remoteConnections
        self.nodesLost = nodesLost
    }
}
