import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func reportConversations(app: AppID, from: Date, before: Date) async throws -> [ReportConversation] {
        var bindings = PostgresBindings()
        bindings.append(app.rawValue)
        bindings.append(Timestamp.millis(from))
        bindings.append(Timestamp.millis(before))
        return try await rows(PostgresQuery(unsafeSQL: Self.numbered(ReportSQL.select), binds: bindings)).map { row in
            let id = ConversationID(rawValue: try PostgresRows.string(row, "id"))
            let rating = try PostgresRows.optionalInt(row, "rating_score").map { score in
                Rating(conversationID: id, score: Int(score), comment: try PostgresRows.optionalString(row, "rating_comment"),
                       agentID: try PostgresRows.optionalString(row, "rating_agent_id").map(AgentID.init(rawValue:)),
                       queueID: QueueID(rawValue: try PostgresRows.string(row, "rating_queue_id")),
                       createdAt: try PostgresRows.date(row, "rating_created_at"), updatedAt: try PostgresRows.date(row, "rating_updated_at"))
            }
            return ReportConversation(
                id: id, queueID: QueueID(rawValue: try PostgresRows.string(row, "queue_id")),
                agentID: try PostgresRows.optionalString(row, "agent_id").map(AgentID.init(rawValue:)),
                state: ConversationState(rawValue: try PostgresRows.string(row, "state")) ?? .ended, createdAt: try PostgresRows.date(row, "created_at"),
                firstResponseAt: try PostgresRows.optionalInt(row, "first_response_at").map(Timestamp.date(millis:)),
                firstResponder: try PostgresRows.optionalString(row, "first_responder").map(AgentID.init(rawValue:)),
                endedAt: try PostgresRows.optionalInt(row, "ended_at").map(Timestamp.date(millis:)), rating: rating)
        }
    }

    /// Standard SQL shared with SQLite, its `?` placeholders numbered `$1`, `$2`, … in order.
    /// The shared queries hold no `?` inside string literals.
    static func numbered(_ sql: String) -> String {
        var numbered = ""
        var count = 0
        for character in sql {
            if character == "?" {
                count += 1
                numbered += "$\(count)"
            } else {
                numbered.append(character)
            }
        }
        return numbered
    }
}
