import Foundation
import GRDB
import ParleyCore
import ParleyStore

/// The commit in SQLite's dialect: read what the lifecycle asks, let it decide, run its writes.
/// The rules are in ``ConversationLifecycle/decide(_:context:effects:)``, shared with PostgreSQL.
extension SQLiteStore {
    public func commit(_ change: ConversationChange, effects: any CommitEffects) async throws -> ConversationCommit {
        try await committer.write { db in try Self.apply(change, effects: effects, in: db) }
    }

    /// Applies one change inside the group transaction. SQLite has one writer, so what is read
    /// cannot change before the writes run.
    static func apply(_ change: ConversationChange, effects: any CommitEffects = NoCommitEffects(), in db: Database) throws -> ConversationCommit {
        let decision = try ConversationLifecycle.decide(change, context: try context(for: change, in: db), effects: effects)
        for write in decision.writes { try run(write, in: db) }
        return decision.commit
    }

    // Cached statements throughout: the hot path runs these thousands of times a second; parsing each is waste.

    private static func context(for change: ConversationChange, in db: Database) throws -> CommitContext {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM conversations WHERE id = ? AND app_id = ?"),
            arguments: [change.conversationID.rawValue, change.appID.rawValue])
        let current = row.map(SQLiteRows.conversation)
        var context = CommitContext(current: current, currentRank: row?["queue_rank"])
        let reads = ConversationLifecycle.reads(for: change)
        let app = change.appID.rawValue

        if let clientMessageID = reads.clientMessageID, current != nil,
           let stored = try Row.fetchOne(
               db.cachedStatement(sql: "SELECT body FROM events WHERE conversation_id = ? AND client_message_id = ?"),
               arguments: [change.conversationID.rawValue, clientMessageID]) {
            context.storedMessage = (try SQLiteRows.event(stored), stored["body"])
        }
        for queue in reads.queues
        where try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM queues WHERE id = ? AND app_id = ?"), arguments: [queue.rawValue, app]) == true {
            context.queuesFound.insert(queue)
        }
        if let visitor = reads.visitor {
            context.visitorFound = try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT 1 FROM visitors WHERE id = ? AND app_id = ?"), arguments: [visitor.rawValue, app]) == true
        }
        if let agent = reads.agentLoad,
           let capacity = try Int.fetchOne(
               db.cachedStatement(sql: "SELECT capacity FROM agents WHERE id = ? AND app_id = ?"), arguments: [agent.rawValue, app]) {
            let assigned = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT count(*) FROM conversations WHERE agent_id = ? AND state = 'assigned'"),
                arguments: [agent.rawValue]) ?? 0
            context.agentLoad = AgentLoad(capacity: capacity, assigned: assigned)
        }
        if let reader = reads.readMarker {
            context.previousRead = try Int64.fetchOne(
                db.cachedStatement(sql: """
                    SELECT read_seq FROM read_markers WHERE conversation_id = ? AND participant_role = ? AND participant_id = ?
                    """),
                arguments: [change.conversationID.rawValue, reader.role.rawValue, reader.id ?? ""])
        }
        if reads.assignedAgentName, let agentID = current?.agentID {
            context.assignedAgentName = try String.fetchOne(
                db.cachedStatement(sql: "SELECT name FROM agents WHERE id = ?"), arguments: [agentID.rawValue])
        }
        return context
    }

    private static func run(_ write: StoreWrite, in db: Database) throws {
        switch write {
        case .insertConversation(let conversation, let rank):
            try db.cachedStatement(sql: """
                INSERT INTO conversations (app_id, queue_id, visitor_id, subject, attributes, state, agent_id, last_seq,
                    queue_rank, queued_at, created_at, updated_at, callback, id)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: conversationArguments(conversation, queueRank: rank))
        case .updateConversation(let conversation, let rank):
            try db.cachedStatement(sql: """
                UPDATE conversations SET app_id = ?, queue_id = ?, visitor_id = ?, subject = ?, attributes = ?, state = ?,
                    agent_id = ?, last_seq = ?, queue_rank = ?, queued_at = ?, created_at = ?, updated_at = ?, callback = ?
                WHERE id = ?
                """).execute(arguments: conversationArguments(conversation, queueRank: rank))
        case .touchConversation(let id, let lastSeq, let updatedAt):
            try db.cachedStatement(sql: "UPDATE conversations SET last_seq = ?, updated_at = ? WHERE id = ?")
                .execute(arguments: [lastSeq, Timestamp.millis(updatedAt), id.rawValue])
        case .insertEvent(let event, let json):
            try db.cachedStatement(sql: """
                INSERT INTO events (conversation_id, seq, type, author_role, author_id, client_message_id, body, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [
                    event.conversationID.rawValue, event.seq, event.body.type, event.author.role.rawValue, event.author.id,
                    event.clientMessageID, json, Timestamp.millis(event.createdAt),
                ])
            try SQLiteSearchIndex.insert(event, in: db)
        case .setReadMarker(let id, let reader, let seq):
            try db.cachedStatement(sql: """
                INSERT INTO read_markers (conversation_id, participant_role, participant_id, read_seq) VALUES (?, ?, ?, ?)
                ON CONFLICT (conversation_id, participant_role, participant_id) DO UPDATE SET read_seq = excluded.read_seq
                """).execute(arguments: [id.rawValue, reader.role.rawValue, reader.id ?? "", seq])
        case .recordWait(let queue, let sample):
            try db.cachedStatement(sql: "INSERT INTO wait_samples (queue_id, queued_at, assigned_at) VALUES (?, ?, ?)")
                .execute(arguments: [queue.rawValue, Timestamp.millis(sample.queuedAt), Timestamp.millis(sample.assignedAt)])
        case .saveFormAnswers(let id, let submission):
            try insertFormAnswers(submission, conversation: id, in: db)
        case .insertAttachment(let record):
            let file = record.attachment
            try db.cachedStatement(sql: """
                INSERT INTO attachments (id, app_id, conversation_id, seq, name, content_type, size, sha256, created_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                """).execute(arguments: [
                    file.id.rawValue, record.appID.rawValue, record.conversationID.rawValue, record.seq, file.name, file.contentType,
                    file.size, file.sha256, Timestamp.millis(record.createdAt),
                ])
        case .enqueue(let entry):
            try enqueue(entry, in: db)
        }
    }

    private static func conversationArguments(_ conversation: Conversation, queueRank: Int64?) -> StatementArguments {
        [
            conversation.appID.rawValue, conversation.queueID.rawValue, conversation.visitorID.rawValue, conversation.subject,
            SQLiteRows.json(conversation.attributes), conversation.state.rawValue, conversation.agentID?.rawValue,
            conversation.lastSeq, queueRank, conversation.queuedAt.map(Timestamp.millis), Timestamp.millis(conversation.createdAt),
            Timestamp.millis(conversation.updatedAt), CallbackJSON.encode(conversation.callback), conversation.id.rawValue,
        ]
    }

    // MARK: Outbox

    public func pendingOutbox(kind: String, limit: Int) async throws -> [OutboxEntry] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM outbox WHERE kind = ? AND done_at IS NULL ORDER BY due_at, id LIMIT ?", arguments: [kind, limit]
            ).map { row in
                OutboxEntry(
                    id: row["id"], kind: row["kind"], appID: AppID(rawValue: row["app_id"]),
                    conversationID: ConversationID(rawValue: row["conversation_id"]), seq: row["seq"], payload: row["payload"],
                    dueAt: SQLiteRows.date(row, "due_at"))
            }
        }
    }

    public func outboxDepths() async throws -> [String: Int] {
        try await pool.read { db in
            var depths: [String: Int] = [:]
            for row in try Row.fetchAll(db, sql: "SELECT kind, count(*) AS n FROM outbox WHERE done_at IS NULL GROUP BY kind") {
                depths[row["kind"]] = row["n"]
            }
            depths["mail"] = try Int.fetchOne(db, sql: "SELECT count(*) FROM mail_outbox WHERE status = 'pending'") ?? 0
            return depths
        }
    }
}
