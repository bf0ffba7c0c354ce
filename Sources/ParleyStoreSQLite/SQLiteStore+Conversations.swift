import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    // MARK: Reads

    public func conversation(_ id: ConversationID, app: AppID) async throws -> Conversation? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM conversations WHERE id = ? AND app_id = ?", arguments: [id.rawValue, app.rawValue])
                .map(SQLiteRows.conversation)
        }
    }

    public func conversationAndRank(_ id: ConversationID, app: AppID) async throws -> ActiveConversation? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM conversations WHERE id = ? AND app_id = ?", arguments: [id.rawValue, app.rawValue])
                .map { ActiveConversation(conversation: SQLiteRows.conversation($0), queueRank: $0["queue_rank"]) }
        }
    }

    public func conversations(_ query: ConversationQuery) async throws -> [Conversation] {
        var clauses = ["app_id = ?"]
        var arguments: StatementArguments = [query.appID.rawValue]
        if let visitorID = query.visitorID {
            clauses.append("visitor_id = ?")
            arguments += [visitorID.rawValue]
        }
        if let agentID = query.agentID {
            clauses.append("agent_id = ?")
            arguments += [agentID.rawValue]
        }
        if let states = query.states {
            clauses.append("state IN (\(states.map { _ in "?" }.joined(separator: ", ")))")
            arguments += StatementArguments(states.map(\.rawValue).sorted())
        }
        if let queueID = query.queueID {
            clauses.append("queue_id = ?")
            arguments += [queueID.rawValue]
        }
        if let tag = query.tag {
            clauses.append("id IN (SELECT t.conversation_id FROM conversation_triage t, json_each(t.tags) j WHERE t.app_id = ? AND j.value = ?)")
            arguments += [query.appID.rawValue, tag]
        }
        if let priority = query.priority {
            clauses.append("coalesce((SELECT t.priority FROM conversation_triage t WHERE t.conversation_id = conversations.id), 'normal') = ?")
            arguments += [priority.rawValue]
        }
        if let after = query.after, query.order == .recentActivity {
            let millis = Timestamp.millis(after.updatedAt)
            clauses.append("(updated_at < ? OR (updated_at = ? AND id < ?))")
            arguments += [millis, millis, after.id.rawValue]
        }
        arguments += [query.limit]
        let order = switch query.order {
        case .recentActivity: "updated_at DESC, id DESC"
        case .queue: "queue_rank, id"
        }
        let sql = "SELECT * FROM conversations WHERE \(clauses.joined(separator: " AND ")) ORDER BY \(order) LIMIT ?"
        let bound = arguments
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map(SQLiteRows.conversation)
        }
    }

    public func events(_ id: ConversationID, app: AppID, afterSeq: Int64, limit: Int) async throws -> [ConversationEvent] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT e.body FROM events e JOIN conversations c ON c.id = e.conversation_id
                    WHERE e.conversation_id = ? AND c.app_id = ? AND e.seq > ? ORDER BY e.seq LIMIT ?
                    """,
                arguments: [id.rawValue, app.rawValue, afterSeq, limit]
            ).map(SQLiteRows.event)
        }
    }

    public func events(_ id: ConversationID, app: AppID, beforeSeq: Int64, limit: Int) async throws -> [ConversationEvent] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT e.body FROM events e JOIN conversations c ON c.id = e.conversation_id
                    WHERE e.conversation_id = ? AND c.app_id = ? AND e.seq < ? ORDER BY e.seq DESC LIMIT ?
                    """,
                arguments: [id.rawValue, app.rawValue, beforeSeq, limit]
            ).map(SQLiteRows.event).reversed()
        }
    }

    public func activeConversations() async throws -> [ActiveConversation] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM conversations WHERE state IN ('queued', 'assigned') ORDER BY queue_rank, id")
                .map { ActiveConversation(conversation: SQLiteRows.conversation($0), queueRank: $0["queue_rank"]) }
        }
    }

    public func readSeq(_ id: ConversationID, participant: Participant) async throws -> Int64 {
        try await pool.read { db in
            try Int64.fetchOne(
                db, sql: "SELECT read_seq FROM read_markers WHERE conversation_id = ? AND participant_role = ? AND participant_id = ?",
                arguments: [id.rawValue, participant.role.rawValue, participant.id ?? ""]) ?? 0
        }
    }
}
