import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func triage(_ ids: [ConversationID], app: AppID) async throws -> [Triage] {
        guard !ids.isEmpty else { return [] }
        let sql = "SELECT * FROM conversation_triage WHERE app_id = ? AND conversation_id IN (\(ids.map { _ in "?" }.joined(separator: ", ")))"
        let arguments = StatementArguments([app.rawValue] + ids.map(\.rawValue))
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { Self.triage($0, prefix: "", id: ConversationID(rawValue: $0["conversation_id"])) }
        }
    }

    public func updateTriage(_ id: ConversationID, app: AppID, _ update: TriageUpdate, by: Participant, at: Date) async throws -> Triage {
        try await committer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM conversations WHERE id = ? AND app_id = ?", arguments: [id.rawValue, app.rawValue]) == true
            else { throw StoreError.notFound("conversation not found") }
            let current = try Row.fetchOne(db, sql: "SELECT * FROM conversation_triage WHERE conversation_id = ?", arguments: [id.rawValue])
                .map { Self.triage($0, prefix: "", id: ConversationID(rawValue: $0["conversation_id"])) }
            let triage = try TriageRules.apply(update, to: current, id: id, by: by, at: at)
            try db.execute(
                sql: """
                    INSERT INTO conversation_triage (conversation_id, app_id, tags, priority, snoozed_until, updated_by, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (conversation_id) DO UPDATE SET tags = excluded.tags, priority = excluded.priority,
                        snoozed_until = excluded.snoozed_until, updated_by = excluded.updated_by, updated_at = excluded.updated_at
                    """,
                arguments: [id.rawValue, app.rawValue, TriageRules.encodeTags(triage.tags), triage.priority.rawValue,
                            triage.snoozedUntil.map(Timestamp.millis), TriageRules.encodeParticipant(triage.updatedBy),
                            triage.updatedAt.map(Timestamp.millis)])
            return triage
        }
    }

    public func openConversations(app: AppID, reader: AgentID) async throws -> [OpenConversation] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: OpenConversationSQL.select, arguments: [reader.rawValue, app.rawValue]).map { row in
                let conversation = SQLiteRows.conversation(row)
                let triage = (row["triage_updated_at"] as Int64?) == nil ? Triage(conversationID: conversation.id) : Self.triage(row, prefix: "triage_", id: conversation.id)
                return OpenConversation(
                    conversation: conversation, queueRank: row["queue_rank"], triage: triage,
                    lastVisitorMessageSeq: row["last_visitor_seq"] ?? 0, lastVisitorMessageAt: SQLiteRows.optionalDate(row, "last_visitor_at"),
                    readerReadSeq: row["reader_read_seq"] ?? 0,
                    waitingSince: SQLiteRows.optionalDate(row, "waiting_since"))
            }
        }
    }

    /// A triage row, its columns named with `prefix`.
    static func triage(_ row: Row, prefix: String, id: ConversationID) -> Triage {
        Triage(conversationID: id, tags: TriageRules.decodeTags(row[prefix + "tags"]),
               priority: ConversationPriority(rawValue: row[prefix + "priority"] ?? "normal") ?? .normal,
               snoozedUntil: SQLiteRows.optionalDate(row, prefix + "snoozed_until"),
               updatedBy: TriageRules.decodeParticipant(row[prefix + "updated_by"]),
               updatedAt: SQLiteRows.optionalDate(row, prefix + "updated_at"))
    }
}
