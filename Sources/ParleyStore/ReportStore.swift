import Foundation
import ParleyCore

/// What reports are computed from: each conversation of a range with the times read from its
/// stored events. The figures themselves are computed by the server, the same for both stores.
public protocol ReportStore: Sendable {
    /// Every conversation of the app created in `[from, before)`, oldest first.
    func reportConversations(app: AppID, from: Date, before: Date) async throws -> [ReportConversation]
}

/// A conversation as reports see it.
public struct ReportConversation: Sendable, Hashable {
    public var id: ConversationID
    /// The queue it is in now, or ended in.
    public var queueID: QueueID
    /// The agent who handled it last (nil when none ever did).
    public var agentID: AgentID?
    public var state: ConversationState
    public var createdAt: Date
    /// The first agent message, and who wrote it.
    public var firstResponseAt: Date?
    public var firstResponder: AgentID?
    /// When it ended (its last state change); nil while it is open.
    public var endedAt: Date?
    public var rating: Rating?

    public init(id: ConversationID, queueID: QueueID, agentID: AgentID?, state: ConversationState, createdAt: Date, firstResponseAt: Date?,
                firstResponder: AgentID?, endedAt: Date?, rating: Rating?) {
        self.id = id
        self.queueID = queueID
        self.agentID = agentID
        self.state = state
        self.createdAt = createdAt
        self.firstResponseAt = firstResponseAt
        self.firstResponder = firstResponder
        self.endedAt = endedAt
        self.rating = rating
    }
}

/// The query both stores run for ``ReportStore/reportConversations(app:from:before:)``: standard
/// SQL with `?` placeholders (app, from, before, in milliseconds) that PostgreSQL's store numbers.
/// Each subquery reads one conversation's events through the primary key.
public enum ReportSQL {
    public static let select = """
        SELECT c.id, c.queue_id, c.agent_id, c.state, c.created_at,
               f.created_at AS first_response_at, f.author_id AS first_responder,
               CASE WHEN c.state = 'ended' THEN
                   (SELECT max(e.created_at) FROM events e WHERE e.conversation_id = c.id AND e.type = 'state_changed')
               END AS ended_at,
               r.score AS rating_score, r.comment AS rating_comment, r.agent_id AS rating_agent_id, r.queue_id AS rating_queue_id,
               r.created_at AS rating_created_at, r.updated_at AS rating_updated_at
        FROM conversations c
        LEFT JOIN events f ON f.conversation_id = c.id AND f.seq = (
            SELECT min(e.seq) FROM events e WHERE e.conversation_id = c.id AND e.type = 'message' AND e.author_role = 'agent')
        LEFT JOIN ratings r ON r.conversation_id = c.id
        WHERE c.app_id = ? AND c.created_at >= ? AND c.created_at < ?
        ORDER BY c.created_at, c.id
        """
}
