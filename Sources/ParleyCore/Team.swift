import Foundation

/// `GET /v1/team`: who is on an app's team right now and how busy the queues are, for any agent of
/// the app (the transfer picker, the inbox's queue names). Admin-only details such as emails are not here.
public struct Team: Hashable, Sendable, Codable {
    public var agents: [Member]
    public var queues: [QueueLoad]

    public init(agents: [Member], queues: [QueueLoad]) {
        self.agents = agents
        self.queues = queues
    }

    /// An agent as teammates see them.
    public struct Member: Hashable, Sendable, Codable {
        public var id: AgentID
        public var name: String
        public var role: AgentRole
        public var availability: Availability
        public var capacity: Int
        /// Conversations assigned to them now.
        public var activeConversations: Int
        /// True while they have a realtime connection open (the desk or the CLI is running).
        public var connected: Bool
        public var disabled: Bool

        public init(id: AgentID, name: String, role: AgentRole, availability: Availability, capacity: Int, activeConversations: Int, connected: Bool, disabled: Bool) {
            self.id = id
            self.name = name
            self.role = role
            self.availability = availability
            self.capacity = capacity
            self.activeConversations = activeConversations
            self.connected = connected
            self.disabled = disabled
        }

        enum CodingKeys: String, CodingKey {
            case id, name, role, availability, capacity, activeConversations = "active_conversations", connected, disabled
        }
    }

    /// A queue and how many conversations wait in it.
    public struct QueueLoad: Hashable, Sendable, Codable {
        public var id: QueueID
        public var name: String
        public var waiting: Int
        public init(id: QueueID, name: String, waiting: Int) {
            self.id = id
            self.name = name
            self.waiting = waiting
        }
    }
}

/// `POST /v1/conversations/{id}/transfer`: exactly one of `agent_id` and `queue_id`, and an
/// optional handover note for whoever takes the conversation next.
public struct TransferRequest: Hashable, Sendable, Codable {
    public var agentID: AgentID?
    public var queueID: QueueID?
    /// Stored as an internal note when the transfer is made (agents only, never the visitor).
    public var note: String?
    public init(agentID: AgentID? = nil, queueID: QueueID? = nil, note: String? = nil) {
        self.agentID = agentID
        self.queueID = queueID
        self.note = note
    }
    enum CodingKeys: String, CodingKey { case agentID = "agent_id", queueID = "queue_id", note }
}

/// The `team` frame: which agent of the app changed (availability, queues, capacity, an account
/// disabled, a desk opened or closed). Re-read `GET /v1/team` for the whole picture: it counts
/// every node's connections.
public struct TeamChange: Hashable, Sendable, Codable {
    public var agentID: AgentID
    public init(agentID: AgentID) { self.agentID = agentID }
    enum CodingKeys: String, CodingKey { case agentID = "agent_id" }
}
