import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func rate(_ rating: NewRating, effects: any CommitEffects) async throws -> Rating {
        try await committer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM conversations WHERE id = ? AND app_id = ?",
                                             arguments: [rating.conversationID.rawValue, rating.appID.rawValue])
            else { throw StoreError.notFound("conversation not found") }
            let conversation = SQLiteRows.conversation(row)
            try RatingRules.check(rating, on: conversation)
            let at = Timestamp.millis(rating.at)
            try db.execute(
                sql: """
                    INSERT INTO ratings (conversation_id, app_id, queue_id, agent_id, score, comment, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (conversation_id) DO UPDATE SET
                        agent_id = excluded.agent_id, queue_id = excluded.queue_id, score = excluded.score,
                        comment = excluded.comment, updated_at = excluded.updated_at
                    """,
                arguments: [rating.conversationID.rawValue, rating.appID.rawValue, conversation.queueID.rawValue,
                            conversation.agentID?.rawValue, rating.score, rating.comment, at, at])
            guard let stored = try Row.fetchOne(db, sql: "SELECT * FROM ratings WHERE conversation_id = ?", arguments: [rating.conversationID.rawValue])
            else { throw StoreError.notFound("conversation not found") }
            let saved = Self.rating(stored)
            for entry in effects.entries(for: saved, conversation: conversation) { try Self.enqueue(entry, in: db) }
            return saved
        }
    }

    public func rating(_ id: ConversationID, app: AppID) async throws -> Rating? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM ratings WHERE conversation_id = ? AND app_id = ?", arguments: [id.rawValue, app.rawValue])
                .map(Self.rating)
        }
    }

    public func ratingScores(app: AppID) async throws -> [(score: Int, agentID: AgentID?, queueID: QueueID)] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT score, agent_id, queue_id FROM ratings WHERE app_id = ?", arguments: [app.rawValue]).map { row in
                (score: row["score"], agentID: (row["agent_id"] as String?).map(AgentID.init(rawValue:)), queueID: QueueID(rawValue: row["queue_id"]))
            }
        }
    }

    static func rating(_ row: Row) -> Rating {
        Rating(conversationID: ConversationID(rawValue: row["conversation_id"]), score: row["score"], comment: row["comment"],
               agentID: (row["agent_id"] as String?).map(AgentID.init(rawValue:)), queueID: QueueID(rawValue: row["queue_id"]),
               createdAt: Timestamp.date(millis: row["created_at"]), updatedAt: Timestamp.date(millis: row["updated_at"]))
    }
}
