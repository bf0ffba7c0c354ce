import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func reportConversations(app: AppID, from: Date, before: Date) async throws -> [ReportConversation] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: ReportSQL.select, arguments: [app.rawValue, Timestamp.millis(from), Timestamp.millis(before)]).map { row in
                let id = ConversationID(rawValue: row["id"])
                let queue = QueueID(rawValue: row["queue_id"])
                let rating = (row["rating_score"] as Int64?).map { score in
                    Rating(conversationID: id, score: Int(score), comment: row["rating_comment"],
                           agentID: (row["rating_agent_id"] as String?).map(AgentID.init(rawValue:)),
                           queueID: QueueID(rawValue: row["rating_queue_id"]),
                           createdAt: SQLiteRows.date(row, "rating_created_at"), updatedAt: SQLiteRows.date(row, "rating_updated_at"))
                }
                return ReportConversation(
                    id: id, queueID: queue, agentID: (row["agent_id"] as String?).map(AgentID.init(rawValue:)),
                    state: ConversationState(rawValue: row["state"]) ?? .ended, createdAt: SQLiteRows.date(row, "created_at"),
                    firstResponseAt: SQLiteRows.optionalDate(row, "first_response_at"),
                    firstResponder: (row["first_responder"] as String?).map(AgentID.init(rawValue:)),
                    endedAt: SQLiteRows.optionalDate(row, "ended_at"), rating: rating)
            }
        }
    }
}
