import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    // MARK: Reads

    public func conversation(_ id: ConversationID, app: AppID) async throws -> Conversation? {
        try await rows("SELECT * FROM conversations WHERE id = \(id.rawValue) AND app_id = \(app.rawValue)").first.map(PostgresRows.conversation)
    }

    public func conversationAndRank(_ id: ConversationID, app: AppID) async throws -> ActiveConversation? {
        try await rows("SELECT * FROM conversations WHERE id = \(id.rawValue) AND app_id = \(app.rawValue)").first.map { row in
            ActiveConversation(conversation: try PostgresRows.conversation(row), queueRank: try PostgresRows.optionalInt(row, "queue_rank"))
        }
    }

    public func conversations(_ query: ConversationQuery) async throws -> [Conversation] {
        var bindings = PostgresBindings()
        func bind(_ value: String) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }
        var clauses = ["app_id = \(bind(query.appID.rawValue))"]
        if let visitorID = query.visitorID { clauses.append("visitor_id = \(bind(visitorID.rawValue))") }
        if let agentID = query.agentID { clauses.append("agent_id = \(bind(agentID.rawValue))") }
        if let states = query.states {
            clauses.append("state IN (\(states.map(\.rawValue).sorted().map(bind).joined(separator: ", ")))")
        }
        if let queueID = query.queueID { clauses.append("queue_id = \(bind(queueID.rawValue))") }
        if let tag = query.tag {
            clauses.append("id IN (SELECT t.conversation_id FROM conversation_triage t WHERE t.app_id = \(bind(query.appID.rawValue)) AND t.tags::jsonb ? \(bind(tag)))")
        }
        if let priority = query.priority {
            clauses.append("coalesce((SELECT t.priority FROM conversation_triage t WHERE t.conversation_id = conversations.id), 'normal') = \(bind(priority.rawValue))")
        }
        if let after = query.after, query.order == .recentActivity {
            bindings.append(Timestamp.millis(after.updatedAt))
            let millis = "$\(bindings.count)"
            clauses.append("(updated_at < \(millis) OR (updated_at = \(millis) AND id < \(bind(after.id.rawValue))))")
        }
        let order = switch query.order {
        case .recentActivity: "updated_at DESC, id DESC"
        case .queue: "queue_rank, id"
        }
        bindings.append(Int64(query.limit))
        let sql = "SELECT * FROM conversations WHERE \(clauses.joined(separator: " AND ")) ORDER BY \(order) LIMIT $\(bindings.count)"
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: bindings)).map(PostgresRows.conversation)
    }

    public func events(_ id: ConversationID, app: AppID, afterSeq: Int64, limit: Int) async throws -> [ConversationEvent] {
        try await rows(
            """
            SELECT e.body FROM events e JOIN conversations c ON c.id = e.conversation_id
            WHERE e.conversation_id = \(id.rawValue) AND c.app_id = \(app.rawValue) AND e.seq > \(afterSeq) ORDER BY e.seq LIMIT \(Int64(limit))
            """).map(PostgresRows.event)
    }

    public func events(_ id: ConversationID, app: AppID, beforeSeq: Int64, limit: Int) async throws -> [ConversationEvent] {
        try await rows(
            """
            SELECT e.body FROM events e JOIN conversations c ON c.id = e.conversation_id
            WHERE e.conversation_id = \(id.rawValue) AND c.app_id = \(app.rawValue) AND e.seq < \(beforeSeq) ORDER BY e.seq DESC LIMIT \(Int64(limit))
            """).map(PostgresRows.event).reversed()
    }

    public func activeConversations() async throws -> [ActiveConversation] {
        try await rows("SELECT * FROM conversations WHERE state IN ('queued', 'assigned') ORDER BY queue_rank, id").map {
            ActiveConversation(conversation: try PostgresRows.conversation($0), queueRank: try PostgresRows.optionalInt($0, "queue_rank"))
        }
    }

    public func readSeq(_ id: ConversationID, participant: Participant) async throws -> Int64 {
        try await rows(
            """
            SELECT read_seq FROM read_markers
            WHERE conversation_id = \(id.rawValue) AND participant_role = \(participant.role.rawValue) AND participant_id = \(participant.id ?? "")
            """).first.map { try PostgresRows.int($0, "read_seq") } ?? 0
    }
}
