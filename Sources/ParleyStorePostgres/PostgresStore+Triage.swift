import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func triage(_ ids: [ConversationID], app: AppID) async throws -> [Triage] {
        guard !ids.isEmpty else { return [] }
        var bindings = PostgresBindings()
        bindings.append(app.rawValue)
        for id in ids { bindings.append(id.rawValue) }
        let sql = "SELECT * FROM conversation_triage WHERE app_id = $1 AND conversation_id IN (\((2...(ids.count + 1)).map { "$\($0)" }.joined(separator: ", ")))"
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: bindings)).map { row in
            try Self.triage(row, prefix: "", id: ConversationID(rawValue: try PostgresRows.string(row, "conversation_id")))
        }
    }

    public func updateTriage(_ id: ConversationID, app: AppID, _ update: TriageUpdate, by: Participant, at: Date) async throws -> Triage {
        try await transaction { connection in
            guard try await exists("SELECT 1 FROM conversations WHERE id = \(id.rawValue) AND app_id = \(app.rawValue) FOR UPDATE", on: connection)
            else { throw StoreError.notFound("conversation not found") }
            let current = try await rows("SELECT * FROM conversation_triage WHERE conversation_id = \(id.rawValue)", on: connection).first
                .map { try Self.triage($0, prefix: "", id: id) }
            let triage = try TriageRules.apply(update, to: current, id: id, by: by, at: at)
            try await connection.query(
                """
                INSERT INTO conversation_triage (conversation_id, app_id, tags, priority, snoozed_until, updated_by, updated_at)
                VALUES (\(id.rawValue), \(app.rawValue), \(TriageRules.encodeTags(triage.tags)), \(triage.priority.rawValue),
                    \(triage.snoozedUntil.map(Timestamp.millis)), \(TriageRules.encodeParticipant(triage.updatedBy)),
                    \(triage.updatedAt.map(Timestamp.millis) ?? Timestamp.millis(at)))
                ON CONFLICT (conversation_id) DO UPDATE SET tags = excluded.tags, priority = excluded.priority,
                    snoozed_until = excluded.snoozed_until, updated_by = excluded.updated_by, updated_at = excluded.updated_at
                """, logger: logger)
            return triage
        }
    }

    public func openConversations(app: AppID, reader: AgentID) async throws -> [OpenConversation] {
        var bindings = PostgresBindings()
        bindings.append(reader.rawValue)
        bindings.append(app.rawValue)
        return try await rows(PostgresQuery(unsafeSQL: Self.numbered(OpenConversationSQL.select), binds: bindings)).map { row in
            let conversation = try PostgresRows.conversation(row)
            let triaged = try row["triage_updated_at"].decode(Int64?.self) != nil
            return OpenConversation(
                conversation: conversation, queueRank: try PostgresRows.optionalInt(row, "queue_rank"),
                triage: triaged ? try Self.triage(row, prefix: "triage_", id: conversation.id) : Triage(conversationID: conversation.id),
                lastVisitorMessageSeq: try row["last_visitor_seq"].decode(Int64?.self) ?? 0,
                lastVisitorMessageAt: try row["last_visitor_at"].decode(Int64?.self).map(Timestamp.date(millis:)),
                readerReadSeq: try row["reader_read_seq"].decode(Int64?.self) ?? 0,
                waitingSince: try row["waiting_since"].decode(Int64?.self).map(Timestamp.date(millis:)))
        }
    }

    /// A triage row, its columns named with `prefix`.
    static func triage(_ row: PostgresRandomAccessRow, prefix: String, id: ConversationID) throws -> Triage {
        Triage(conversationID: id, tags: TriageRules.decodeTags(try PostgresRows.optionalString(row, prefix + "tags")),
               priority: ConversationPriority(rawValue: try PostgresRows.optionalString(row, prefix + "priority") ?? "normal") ?? .normal,
               snoozedUntil: try row[prefix + "snoozed_until"].decode(Int64?.self).map(Timestamp.date(millis:)),
               updatedBy: TriageRules.decodeParticipant(try PostgresRows.optionalString(row, prefix + "updated_by")),
               updatedAt: try row[prefix + "updated_at"].decode(Int64?.self).map(Timestamp.date(millis:)))
    }
}
