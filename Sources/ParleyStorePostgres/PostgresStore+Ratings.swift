import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func rate(_ rating: NewRating, effects: any CommitEffects) async throws -> Rating {
        try await transaction { connection in
            guard let row = try await rows(
                "SELECT * FROM conversations WHERE id = \(rating.conversationID.rawValue) AND app_id = \(rating.appID.rawValue) FOR UPDATE",
                on: connection).first
            else { throw StoreError.notFound("conversation not found") }
            let conversation = try PostgresRows.conversation(row)
            try RatingRules.check(rating, on: conversation)
            let at = Timestamp.millis(rating.at)
            let stored = try await rows(
                """
                INSERT INTO ratings (conversation_id, app_id, queue_id, agent_id, score, comment, created_at, updated_at)
                VALUES (\(rating.conversationID.rawValue), \(rating.appID.rawValue), \(conversation.queueID.rawValue),
                    \(conversation.agentID?.rawValue), \(Int64(rating.score)), \(rating.comment), \(at), \(at))
                ON CONFLICT (conversation_id) DO UPDATE SET
                    agent_id = excluded.agent_id, queue_id = excluded.queue_id, score = excluded.score,
                    comment = excluded.comment, updated_at = excluded.updated_at
                RETURNING *
                """, on: connection)
            guard let first = stored.first else { throw StoreError.notFound("conversation not found") }
            let saved = try Self.rating(first)
            for entry in effects.entries(for: saved, conversation: conversation) { try await enqueue(entry, on: connection) }
            return saved
        }
    }

    public func rating(_ id: ConversationID, app: AppID) async throws -> Rating? {
        try await rows("SELECT * FROM ratings WHERE conversation_id = \(id.rawValue) AND app_id = \(app.rawValue)").first.map(Self.rating)
    }

    public func ratingScores(app: AppID) async throws -> [(score: Int, agentID: AgentID?, queueID: QueueID)] {
        try await rows("SELECT score, agent_id, queue_id FROM ratings WHERE app_id = \(app.rawValue)").map { row in
            (score: Int(try PostgresRows.int(row, "score")), agentID: try PostgresRows.optionalString(row, "agent_id").map(AgentID.init(rawValue:)),
             queueID: QueueID(rawValue: try PostgresRows.string(row, "queue_id")))
        }
    }

    static func rating(_ row: PostgresRandomAccessRow) throws -> Rating {
        Rating(conversationID: ConversationID(rawValue: try PostgresRows.string(row, "conversation_id")), score: Int(try PostgresRows.int(row, "score")),
               comment: try PostgresRows.optionalString(row, "comment"),
               agentID: try PostgresRows.optionalString(row, "agent_id").map(AgentID.init(rawValue:)),
               queueID: QueueID(rawValue: try PostgresRows.string(row, "queue_id")),
               createdAt: try PostgresRows.date(row, "created_at"), updatedAt: try PostgresRows.date(row, "updated_at"))
    }
}
