import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

/// The commit in PostgreSQL's dialect: lock and read what the lifecycle asks, let it decide, run
/// its writes. The rules are in ``ConversationLifecycle/decide(_:context:effects:)``, shared with SQLite.
///
/// The other nodes hear of the commit after it lands, in a batched notice (``NoticeBatcher``), not
/// from inside the transaction: a transaction that calls NOTIFY holds a cluster-wide lock until its
/// commit is flushed, so such commits could not share WAL flushes (decision 0008).
extension PostgresStore {
    public func commit(_ change: ConversationChange, effects: any CommitEffects) async throws -> ConversationCommit {
        // Through the group commit (`PostgresGroupCommit.swift`): changes handed in together share a transaction.
        let commit = try await committer.submit(CommitUnit(change: change, effects: effects))
        if !commit.isDuplicate, let first = commit.events.first?.seq, let last = commit.events.last?.seq {
            notices.add(NodeNoticeWire.committed(
                node: nodeID, app: change.appID, conversation: change.conversationID, seqs: first...last, moved: commit.moved,
                events: commit.moved ? nil : commit.encodedEvents))
        }
        return commit
    }

    /// One change in a transaction of its own.
    func commitAlone(_ unit: CommitUnit) async throws -> ConversationCommit {
        do {
            return try await decideAndWrite(unit.change, effects: unit.effects)
        } catch let error as PSQLError where error.isUniqueViolation {
            // A resend raced the first send of the same message: the idempotency lookup rides on the
            // row-locking read, whose snapshot predates the lock wait, so it could not see the
            // message the other transaction stored meanwhile. Once more, it finds it.
            return try await decideAndWrite(unit.change, effects: unit.effects)
        }
    }

    private func decideAndWrite(_ change: ConversationChange, effects: any CommitEffects) async throws -> ConversationCommit {
        try await transaction { connection in
            let decision = try ConversationLifecycle.decide(change, context: try await context(for: change, on: connection), effects: effects)
            try await run(decision.writes, on: connection)
            return decision.commit
        }
    }

    /// Locks the conversation's row, then reads the rest. A plain message takes one round trip:
    /// the idempotency lookup rides along with the row.
    func context(for change: ConversationChange, on connection: PostgresConnection) async throws -> CommitContext {
        let id = change.conversationID.rawValue, app = change.appID.rawValue
        let reads = ConversationLifecycle.reads(for: change)
        let row: PostgresRandomAccessRow?
        if let clientMessageID = reads.clientMessageID {
            row = try await rows(
                """
                SELECT c.*, (SELECT e.body FROM events e WHERE e.conversation_id = c.id AND e.client_message_id = \(clientMessageID)) AS stored_body
                FROM conversations c WHERE c.id = \(id) AND c.app_id = \(app) FOR UPDATE OF c
                """, on: connection).first
        } else {
            row = try await rows("SELECT * FROM conversations WHERE id = \(id) AND app_id = \(app) FOR UPDATE", on: connection).first
        }
        let current = try row.map(PostgresRows.conversation)
        var context = CommitContext(current: current, currentRank: try row.flatMap { try PostgresRows.optionalInt($0, "queue_rank") })
        if reads.clientMessageID != nil, let row, let body = try PostgresRows.optionalString(row, "stored_body") {
            context.storedMessage = (try ParleyJSON.decode(ConversationEvent.self, from: Data(body.utf8)), body)
        }
        for queue in reads.queues where try await exists("SELECT 1 FROM queues WHERE id = \(queue.rawValue) AND app_id = \(app)", on: connection) {
            context.queuesFound.insert(queue)
        }
        if let visitor = reads.visitor {
            context.visitorFound = try await exists("SELECT 1 FROM visitors WHERE id = \(visitor.rawValue) AND app_id = \(app)", on: connection)
        }
        if let agent = reads.agentLoad {
            // The agent's row is locked after the conversation's (always in that order), so two nodes
            // assigning to one agent count one after the other (decision 0006).
            if let agentRow = try await rows(
                "SELECT capacity FROM agents WHERE id = \(agent.rawValue) AND app_id = \(app) FOR UPDATE", on: connection).first {
                let assigned = try await rows(
                    "SELECT count(*) AS load FROM conversations WHERE agent_id = \(agent.rawValue) AND state = 'assigned'", on: connection)
                    .first.map { try PostgresRows.int($0, "load") } ?? 0
                context.agentLoad = AgentLoad(capacity: Int(try PostgresRows.int(agentRow, "capacity")), assigned: Int(assigned))
            }
        }
        if let reader = reads.readMarker {
            context.previousRead = try await rows(
                """
                SELECT read_seq FROM read_markers
                WHERE conversation_id = \(id) AND participant_role = \(reader.role.rawValue) AND participant_id = \(reader.id ?? "")
                """, on: connection).first.map { try PostgresRows.int($0, "read_seq") }
        }
        if reads.assignedAgentName, let agentID = current?.agentID {
            context.assignedAgentName = try await rows("SELECT name FROM agents WHERE id = \(agentID.rawValue)", on: connection).first
                .map { try PostgresRows.string($0, "name") }
        }
        return context
    }

    /// Runs writes in order. Runs of events and conversation touches (the messages of a batch) go
    /// in one statement each; anything else ends a run and goes alone, so rows are written in the
    /// order decided (a conversation before its first event).
    func run(_ writes: [StoreWrite], on connection: PostgresConnection) async throws {
        // A message alone, into a conversation that stays where it is: one round trip.
        if writes.count == 2, case .touchConversation(let id, let lastSeq, let updatedAt) = writes[0], case .insertEvent(let event, let json) = writes[1] {
            // Its words go in the same statement (decision 0020).
            if let words = PostgresSearchIndex.vector(event) {
                try await connection.query(
                    """
                    WITH touched AS (
                        UPDATE conversations SET last_seq = \(lastSeq), updated_at = \(Timestamp.millis(updatedAt)) WHERE id = \(id.rawValue)),
                    indexed AS (
                        INSERT INTO message_search (app_id, conversation_id, seq, words)
                        SELECT app_id, id, \(event.seq), \(words)::tsvector FROM conversations WHERE id = \(id.rawValue))
                    INSERT INTO events (conversation_id, seq, type, author_role, author_id, client_message_id, body, created_at)
                    VALUES (\(event.conversationID.rawValue), \(event.seq), \(event.body.type), \(event.author.role.rawValue), \(event.author.id),
                        \(event.clientMessageID), \(json), \(Timestamp.millis(event.createdAt)))
                    """, logger: logger)
                return
            }
            try await connection.query(
                """
                WITH touched AS (
                    UPDATE conversations SET last_seq = \(lastSeq), updated_at = \(Timestamp.millis(updatedAt)) WHERE id = \(id.rawValue))
                INSERT INTO events (conversation_id, seq, type, author_role, author_id, client_message_id, body, created_at)
                VALUES (\(event.conversationID.rawValue), \(event.seq), \(event.body.type), \(event.author.role.rawValue), \(event.author.id),
                    \(event.clientMessageID), \(json), \(Timestamp.millis(event.createdAt)))
                """, logger: logger)
            return
        }
        var events: [(ConversationEvent, String)] = []
        var touches: [ConversationID: (lastSeq: Int64, updatedAt: Date)] = [:]
        var touchOrder: [ConversationID] = []
        func flush() async throws {
            if !events.isEmpty { try await insertEvents(events, on: connection) }
            if !touchOrder.isEmpty { try await touchConversations(touchOrder.map { ($0, touches[$0]!) }, on: connection) }
            events = []
            touches = [:]
            touchOrder = []
        }
        for write in writes {
            switch write {
            case .insertEvent(let event, let json):
                events.append((event, json))
            case .touchConversation(let id, let lastSeq, let updatedAt):
                if touches[id] == nil { touchOrder.append(id) }
                touches[id] = (lastSeq, updatedAt)
            default:
                try await flush()
                try await run(write, on: connection)
            }
        }
        try await flush()
    }

    /// `($1, $2), ($3, $4)…`: `rows` rows of one numbered parameter per cast (`""` for none).
    static func placeholders(rows: Int, casts: [String]) -> String {
        (0..<rows).map { row in
            "(" + casts.indices.map { column in "$\(row * casts.count + column + 1)\(casts[column])" }.joined(separator: ", ") + ")"
        }.joined(separator: ", ")
    }

    /// Events in one INSERT.
    private func insertEvents(_ events: [(ConversationEvent, String)], on connection: PostgresConnection) async throws {
        var binds = PostgresBindings(capacity: events.count * 8)
        for (event, json) in events {
            binds.append(event.conversationID.rawValue)
            binds.append(event.seq)
            binds.append(event.body.type)
            binds.append(event.author.role.rawValue)
            binds.append(event.author.id)
            binds.append(event.clientMessageID)
            binds.append(json)
            binds.append(Timestamp.millis(event.createdAt))
        }
        let sql = "INSERT INTO events (conversation_id, seq, type, author_role, author_id, client_message_id, body, created_at) VALUES "
            + Self.placeholders(rows: events.count, casts: Array(repeating: "", count: 8))
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
        try await PostgresSearchIndex.insert(events.map(\.0), on: connection, logger: logger)
    }

    /// Conversations' activity (last seq, updated at) in one UPDATE.
    private func touchConversations(_ touches: [(ConversationID, (lastSeq: Int64, updatedAt: Date))], on connection: PostgresConnection) async throws {
        if touches.count == 1, let (id, touch) = touches.first {
            try await run(.touchConversation(id, lastSeq: touch.lastSeq, updatedAt: touch.updatedAt), on: connection)
            return
        }
        var binds = PostgresBindings(capacity: touches.count * 3)
        for (id, touch) in touches {
            binds.append(id.rawValue)
            binds.append(touch.lastSeq)
            binds.append(Timestamp.millis(touch.updatedAt))
        }
        let sql = "UPDATE conversations AS c SET last_seq = v.last_seq, updated_at = v.updated_at FROM (VALUES "
            + Self.placeholders(rows: touches.count, casts: ["::text", "::bigint", "::bigint"]) + ") AS v(id, last_seq, updated_at) WHERE c.id = v.id"
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
    }

    private func run(_ write: StoreWrite, on connection: PostgresConnection) async throws {
        switch write {
        case .insertConversation(let c, let rank):
            try await connection.query(
                """
                INSERT INTO conversations (id, app_id, queue_id, visitor_id, subject, attributes, state, agent_id, last_seq,
                    queue_rank, queued_at, created_at, updated_at, callback)
                VALUES (\(c.id.rawValue), \(c.appID.rawValue), \(c.queueID.rawValue), \(c.visitorID.rawValue), \(c.subject),
                    \(PostgresRows.json(c.attributes)), \(c.state.rawValue), \(c.agentID?.rawValue), \(c.lastSeq), \(rank),
                    \(c.queuedAt.map(Timestamp.millis)), \(Timestamp.millis(c.createdAt)), \(Timestamp.millis(c.updatedAt)),
                    \(CallbackJSON.encode(c.callback)))
                """, logger: logger)
        case .updateConversation(let c, let rank):
            try await connection.query(
                """
                UPDATE conversations SET queue_id = \(c.queueID.rawValue), subject = \(c.subject), attributes = \(PostgresRows.json(c.attributes)),
                    state = \(c.state.rawValue), agent_id = \(c.agentID?.rawValue), last_seq = \(c.lastSeq), queue_rank = \(rank),
                    queued_at = \(c.queuedAt.map(Timestamp.millis)), updated_at = \(Timestamp.millis(c.updatedAt)),
                    callback = \(CallbackJSON.encode(c.callback))
                WHERE id = \(c.id.rawValue)
                """, logger: logger)
        case .touchConversation(let id, let lastSeq, let updatedAt):
            try await connection.query(
                "UPDATE conversations SET last_seq = \(lastSeq), updated_at = \(Timestamp.millis(updatedAt)) WHERE id = \(id.rawValue)",
                logger: logger)
        case .insertEvent(let event, let json):
            try await connection.query(
                """
                INSERT INTO events (conversation_id, seq, type, author_role, author_id, client_message_id, body, created_at)
                VALUES (\(event.conversationID.rawValue), \(event.seq), \(event.body.type), \(event.author.role.rawValue), \(event.author.id),
                    \(event.clientMessageID), \(json), \(Timestamp.millis(event.createdAt)))
                """, logger: logger)
            try await PostgresSearchIndex.insert([event], on: connection, logger: logger)
        case .setReadMarker(let id, let reader, let seq):
            try await connection.query(
                """
                INSERT INTO read_markers (conversation_id, participant_role, participant_id, read_seq)
                VALUES (\(id.rawValue), \(reader.role.rawValue), \(reader.id ?? ""), \(seq))
                ON CONFLICT (conversation_id, participant_role, participant_id) DO UPDATE SET read_seq = excluded.read_seq
                """, logger: logger)
        case .recordWait(let queue, let sample):
            try await connection.query(
                """
                INSERT INTO wait_samples (queue_id, queued_at, assigned_at)
                VALUES (\(queue.rawValue), \(Timestamp.millis(sample.queuedAt)), \(Timestamp.millis(sample.assignedAt)))
                """, logger: logger)
        case .saveFormAnswers(let id, let submission):
            try await insertFormAnswers(submission, conversation: id, on: connection)
        case .insertAttachment(let record):
            let file = record.attachment
            try await connection.query(
                """
                INSERT INTO attachments (id, app_id, conversation_id, seq, name, content_type, size, sha256, created_at)
                VALUES (\(file.id.rawValue), \(record.appID.rawValue), \(record.conversationID.rawValue), \(record.seq), \(file.name),
                    \(file.contentType), \(file.size), \(file.sha256), \(Timestamp.millis(record.createdAt)))
                """, logger: logger)
        case .enqueue(let entry):
            try await enqueue(entry, on: connection)
        }
    }

    // MARK: Outbox

    public func pendingOutbox(kind: String, limit: Int) async throws -> [OutboxEntry] {
        try await rows(
            "SELECT * FROM outbox WHERE kind = \(kind) AND done_at IS NULL ORDER BY due_at, id LIMIT \(Int64(limit))"
        ).map { row in
            OutboxEntry(
                id: try PostgresRows.string(row, "id"), kind: try PostgresRows.string(row, "kind"),
                appID: AppID(rawValue: try PostgresRows.string(row, "app_id")),
                conversationID: ConversationID(rawValue: try PostgresRows.string(row, "conversation_id")),
                seq: try PostgresRows.int(row, "seq"), payload: try PostgresRows.string(row, "payload"),
                dueAt: try PostgresRows.date(row, "due_at"))
        }
    }

    public func outboxDepths() async throws -> [String: Int] {
        var depths: [String: Int] = [:]
        for row in try await rows("SELECT kind, count(*) AS n FROM outbox WHERE done_at IS NULL GROUP BY kind") {
            depths[try PostgresRows.string(row, "kind")] = Int(try PostgresRows.int(row, "n"))
        }
        depths["mail"] = Int(try await rows("SELECT count(*) AS n FROM mail_outbox WHERE status = 'pending'").first
            .map { try PostgresRows.int($0, "n") } ?? 0)
        return depths
    }
}
