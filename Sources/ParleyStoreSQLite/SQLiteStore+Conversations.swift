import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func commit(_ change: ConversationChange) async throws -> ConversationCommit {
        try await committer.write { db in try Self.apply(change, in: db) }
    }

    /// Refuses an agent of another app (as not found) and an agent already holding `capacity`
    /// assigned conversations. SQLite has one writer, so the count cannot change under us.
    private static func checkCapacity(of agent: Participant, app: AppID, in db: Database) throws {
        guard let capacity = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT capacity FROM agents WHERE id = ? AND app_id = ?"), arguments: [agent.id ?? "", app.rawValue])
        else { throw StoreError.notFound("agent not found") }
        let load = try Int.fetchOne(
            db.cachedStatement(sql: "SELECT count(*) FROM conversations WHERE agent_id = ? AND state = 'assigned'"),
            arguments: [agent.id ?? ""]) ?? 0
        if load >= capacity { throw StoreError.atCapacity("the agent already handles \(load) of \(capacity) conversations") }
    }

    /// Applies one change inside the group transaction (in its own savepoint).
    static func apply(_ change: ConversationChange, in db: Database) throws -> ConversationCommit {
        // Cached statements: the hot path runs these thousands of times a second; parsing each is waste.
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT * FROM conversations WHERE id = ? AND app_id = ?"),
            arguments: [change.conversationID.rawValue, change.appID.rawValue])
        let current = row.map(SQLiteRows.conversation)
        let currentRank: Int64? = row?["queue_rank"]
        if let current { try ConversationLifecycle.authorize(change, on: current) }

        if case .postMessage(let post) = change, let current,
           let stored = try Row.fetchOne(
               db.cachedStatement(sql: "SELECT body FROM events WHERE conversation_id = ? AND client_message_id = ?"),
               arguments: [post.conversationID.rawValue, post.clientMessageID]) {
            let event = try SQLiteRows.event(stored)
            guard event.author.role == post.author.role, event.author.id == post.author.id, event.message?.text == post.text else {
                throw StoreError.idempotencyConflict("client_message_id \(post.clientMessageID) was used for another message")
            }
            return ConversationCommit(conversation: current, events: [event], isDuplicate: true, encodedEvents: [stored["body"]])
        }
        // Everyone a change names must belong to the change's app.
        switch change {
        case .open(let open):
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM queues WHERE id = ? AND app_id = ?"),
                                    arguments: [open.queueID.rawValue, open.appID.rawValue]) == true
            else { throw StoreError.notFound("queue not found") }
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM visitors WHERE id = ? AND app_id = ?"),
                                    arguments: [open.visitorID.rawValue, open.appID.rawValue]) == true
            else { throw StoreError.notFound("visitor not found") }
        case .assign(let assign):
            try checkCapacity(of: assign.agent, app: assign.appID, in: db)
        case .transfer(let transfer):
            switch transfer.target {
            case .agent(let agent):
                try checkCapacity(of: agent, app: transfer.appID, in: db)
            case .queue(let queue, _):
                guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM queues WHERE id = ? AND app_id = ?"),
                                        arguments: [queue.rawValue, transfer.appID.rawValue]) == true
                else { throw StoreError.notFound("queue not found") }
            }
        default:
            break
        }
        var previousRead: Int64?
        if case .markRead(let read) = change {
            previousRead = try Int64.fetchOne(
                db, sql: "SELECT read_seq FROM read_markers WHERE conversation_id = ? AND participant_role = ? AND participant_id = ?",
                arguments: [read.conversationID.rawValue, read.by.role.rawValue, read.by.id ?? ""])
        }

        var assignedAgentName: String?
        if change.namesAssignedAgent, let agentID = current?.agentID {
            assignedAgentName = try String.fetchOne(
                db.cachedStatement(sql: "SELECT name FROM agents WHERE id = ?"), arguments: [agentID.rawValue])
        }
        let plan = try ConversationLifecycle.plan(
            change, current: current, currentRank: currentRank, previousRead: previousRead, assignedAgentName: assignedAgentName)
        guard !plan.events.isEmpty else { return ConversationCommit(conversation: plan.conversation, events: []) }

        let (conversation, events) = ConversationLifecycle.stamp(plan, current: current, at: change.at)
        if ConversationLifecycle.onlyActivityChanged(conversation, rank: plan.queueRank, from: current, currentRank: currentRank) {
            try db.cachedStatement(sql: "UPDATE conversations SET last_seq = ?, updated_at = ? WHERE id = ?").execute(
                arguments: [conversation.lastSeq, Timestamp.millis(conversation.updatedAt), conversation.id.rawValue])
        } else {
            try write(conversation, queueRank: plan.queueRank, isNew: current == nil, in: db)
            if case .open(let open) = change, let submission = open.formSubmission {
                try Self.insertFormAnswers(submission, conversation: conversation.id, in: db)
            }
            if let wait = ConversationLifecycle.waitSample(from: current, to: conversation) {
                try db.execute(sql: "INSERT INTO wait_samples (queue_id, queued_at, assigned_at) VALUES (?, ?, ?)",
                               arguments: [conversation.queueID.rawValue, Timestamp.millis(wait.queuedAt), Timestamp.millis(wait.assignedAt)])
            }
        }
        var encodedEvents: [String] = []
        encodedEvents.reserveCapacity(events.count)
        for event in events {
            let body = String(decoding: try ParleyJSON.encode(event), as: UTF8.self)
            encodedEvents.append(body)
            try db.cachedStatement(sql: """
                    INSERT INTO events (conversation_id, seq, type, author_role, author_id, client_message_id, body, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """).execute(
                arguments: [event.conversationID.rawValue, event.seq, event.body.type, event.author.role.rawValue, event.author.id,
                            event.message?.clientMessageID, body,
                            Timestamp.millis(event.createdAt)])
            if case .read(let marker) = event.body {
                try db.execute(
                    sql: """
                        INSERT INTO read_markers (conversation_id, participant_role, participant_id, read_seq) VALUES (?, ?, ?, ?)
                        ON CONFLICT (conversation_id, participant_role, participant_id) DO UPDATE SET read_seq = excluded.read_seq
                        """,
                    arguments: [event.conversationID.rawValue, event.author.role.rawValue, event.author.id ?? "", marker.readSeq])
            }
        }
        return ConversationCommit(conversation: conversation, events: events, encodedEvents: encodedEvents)
    }

    private static func write(_ conversation: Conversation, queueRank: Int64?, isNew: Bool, in db: Database) throws {
        let arguments: StatementArguments = [
            conversation.appID.rawValue, conversation.queueID.rawValue, conversation.visitorID.rawValue, conversation.subject,
            SQLiteRows.json(conversation.attributes), conversation.state.rawValue, conversation.agentID?.rawValue,
            conversation.lastSeq, queueRank, conversation.queuedAt.map(Timestamp.millis), Timestamp.millis(conversation.createdAt),
            Timestamp.millis(conversation.updatedAt), conversation.id.rawValue,
        ]
        if isNew {
            try db.execute(
                sql: """
                    INSERT INTO conversations (app_id, queue_id, visitor_id, subject, attributes, state, agent_id, last_seq,
                        queue_rank, queued_at, created_at, updated_at, id)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: arguments)
        } else {
            try db.cachedStatement(sql: """
                    UPDATE conversations SET app_id = ?, queue_id = ?, visitor_id = ?, subject = ?, attributes = ?, state = ?,
                        agent_id = ?, last_seq = ?, queue_rank = ?, queued_at = ?, created_at = ?, updated_at = ?
                    WHERE id = ?
                    """).execute(arguments: arguments)
        }
    }

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
