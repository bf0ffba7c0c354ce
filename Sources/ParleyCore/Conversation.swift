import Foundation

/// Where a conversation is in its life: waiting in a queue, handled by an agent, or over.
public enum ConversationState: String, Hashable, Sendable, Codable, CaseIterable {
    /// Waiting for an agent in its queue.
    case queued
    /// Handled by one agent.
    case assigned
    /// Over: ended by either side, or cancelled while queued. A visitor's new message reopens it.
    case ended
}

/// A conversation as clients see it.
public struct Conversation: Hashable, Sendable, Codable {
    public var id: ConversationID
    public var appID: AppID
    public var queueID: QueueID
    public var visitorID: VisitorID
    public var subject: String?
    public var attributes: [String: String]
    public var state: ConversationState
    /// The agent handling it; set while assigned, and kept after it ends to show who handled it last.
    public var agentID: AgentID?
    /// The seq of the conversation's newest event (0 when it has none).
    public var lastSeq: Int64
    /// The 1-based position in its queue while queued and known to this server.
    public var queuePosition: Int?
    public var createdAt: Date
    public var updatedAt: Date
    /// When it last entered its queue (its wait starts here); nil when not queued.
    public var queuedAt: Date?
    /// The callback request this conversation is, when the visitor asked for a callback
    /// (`POST /v1/callbacks`) instead of a chat.
    public var callback: Callback?

    /// Creates a conversation value.
    public init(
        id: ConversationID, appID: AppID, queueID: QueueID, visitorID: VisitorID, subject: String?,
        attributes: [String: String], state: ConversationState, agentID: AgentID?, lastSeq: Int64,
        queuePosition: Int? = nil, createdAt: Date, updatedAt: Date, queuedAt: Date?, callback: Callback? = nil
    ) {
        self.callback = callback
        self.id = id
        self.appID = appID
        self.queueID = queueID
        self.visitorID = visitorID
        self.subject = subject
        self.attributes = attributes
        self.state = state
        self.agentID = agentID
        self.lastSeq = lastSeq
        self.queuePosition = queuePosition
        self.createdAt = createdAt
        self.updatedAt = updatedAt
        self.queuedAt = queuedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, subject, attributes, state
        case appID = "app_id", queueID = "queue_id", visitorID = "visitor_id", agentID = "agent_id"
        case lastSeq = "last_seq", queuePosition = "queue_position"
        case createdAt = "created_at", updatedAt = "updated_at", queuedAt = "queued_at", callback
    }
}
