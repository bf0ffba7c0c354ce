import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func commit(_ change: ConversationChange) async throws -> ConversationCommit {
        try await transaction { connection in try await apply(change, on: connection) }
    }

    /// Applies one change in the caller's transaction. The conversation's row is locked first, so
    /// changes to one conversation from any node are applied one after another with gap-free seqs.
    private func apply(_ change: ConversationChange, on connection: PostgresConnection) async throws -> ConversationCommit {
        let id = change.conversationID.rawValue, app = change.appID.rawValue
        let row = try await rows("SELECT * FROM conversations WHERE id = \(id) AND app_id = \(app) FOR UPDATE", on: connection).first
        let current = try row.map(PostgresRows.conversation)
        let currentRank = try row.flatMap { try PostgresRows.optionalInt($0, "queue_rank") }
        if let current { try ConversationLifecycle.authorize(change, on: current) }

        if case .postMessage(let post) = change, let current,
           let stored = try await rows(
               "SELECT body FROM events WHERE conversation_id = \(id) AND client_message_id = \(post.clientMessageID)", on: connection).first {
            let event = try PostgresRows.event(stored)
            guard event.author.role == post.author.role, event.author.id == post.author.id, event.message?.text == post.text else {
                throw StoreError.idempotencyConflict("client_message_id \(post.clientMessageID) was used for another message")
            }
            return ConversationCommit(
                conversation: current, events: [event], isDuplicate: true, encodedEvents: [try PostgresRows.string(stored, "body")])
        }
        // Everyone a change names must belong to the change's app.
        switch change {
        case .open(let open):
            guard try await exists("SELECT 1 FROM queues WHERE id = \(open.queueID.rawValue) AND app_id = \(app)", on: connection)
            else { throw StoreError.notFound("queue not found") }
            guard try await exists("SELECT 1 FROM visitors WHERE id = \(open.visitorID.rawValue) AND app_id = \(app)", on: connection)
            else { throw StoreError.notFound("visitor not found") }
        case .assign(let assign):
            try await checkCapacity(of: assign.agent, app: app, on: connection)
        case .transfer(let transfer):
            switch transfer.target {
            case .agent(let agent):
                try await checkCapacity(of: agent, app: app, on: connection)
            case .queue(let queue, _):
                guard try await exists("SELECT 1 FROM queues WHERE id = \(queue.rawValue) AND app_id = \(app)", on: connection)
                else { throw StoreError.notFound("queue not found") }
            }
        default:
            break
        }
        var previousRead: Int64?
        if case .markRead(let read) = change {
            previousRead = try await rows(
                """
                SELECT read_seq FROM read_markers
                WHERE conversation_id = \(id) AND participant_role = \(read.by.role.rawValue) AND participant_id = \(read.by.id ?? "")
                """, on: connection).first.map { try PostgresRows.int($0, "read_seq") }
        }
        var assignedAgentName: String?
        if change.namesAssignedAgent, let agentID = current?.agentID {
            assignedAgentName = try await rows("SELECT name FROM agents WHERE id = \(agentID.rawValue)", on: connection).first
                .map { try PostgresRows.string($0, "name") }
        }
        let plan = try ConversationLifecycle.plan(
            change, current: current, currentRank: currentRank, previousRead: previousRead, assignedAgentName: assignedAgentName)
        guard !plan.events.isEmpty else { return ConversationCommit(conversation: plan.conversation, events: []) }

        let (conversation, events) = ConversationLifecycle.stamp(plan, current: current, at: change.at)
        if ConversationLifecycle.onlyActivityChanged(conversation, rank: plan.queueRank, from: current, currentRank: currentRank) {
            try await connection.query(
                """
                UPDATE conversations SET last_seq = \(conversation.lastSeq), updated_at = \(Timestamp.millis(conversation.updatedAt))
                WHERE id = \(id)
                """, logger: logger)
        } else {
            try await write(conversation, queueRank: plan.queueRank, isNew: current == nil, on: connection)
            if case .open(let open) = change, let submission = open.formSubmission {
                try await insertFormAnswers(submission, conversation: conversation.id, on: connection)
            }
            if let wait = ConversationLifecycle.waitSample(from: current, to: conversation) {
                try await connection.query(
                    """
                    INSERT INTO wait_samples (queue_id, queued_at, assigned_at)
                    VALUES (\(conversation.queueID.rawValue), \(Timestamp.millis(wait.queuedAt)), \(Timestamp.millis(wait.assignedAt)))
                    """, logger: logger)
            }
        }
        var encodedEvents: [String] = []
        for event in events {
            let body = String(decoding: try ParleyJSON.encode(event), as: UTF8.self)
            encodedEvents.append(body)
            try await connection.query(
                """
                INSERT INTO events (conversation_id, seq, type, author_role, author_id, client_message_id, body, created_at)
                VALUES (\(id), \(event.seq), \(event.body.type), \(event.author.role.rawValue), \(event.author.id),
                    \(event.message?.clientMessageID), \(body), \(Timestamp.millis(event.createdAt)))
                """, logger: logger)
            if case .read(let marker) = event.body {
                try await connection.query(
                    """
                    INSERT INTO read_markers (conversation_id, participant_role, participant_id, read_seq)
                    VALUES (\(id), \(event.author.role.rawValue), \(event.author.id ?? ""), \(marker.readSeq))
                    ON CONFLICT (conversation_id, participant_role, participant_id) DO UPDATE SET read_seq = excluded.read_seq
                    """, logger: logger)
            }
        }
        if let first = events.first?.seq, let last = events.last?.seq {
            // In the transaction: PostgreSQL delivers the notice when, and only if, the commit lands.
            let moved = current?.state != conversation.state || current?.agentID != conversation.agentID
                || current?.queueID != conversation.queueID || currentRank != plan.queueRank
            let notice = NodeNoticeWire.committed(
                node: nodeID, app: change.appID, conversation: change.conversationID, seqs: first...last, moved: moved)
            try await connection.query("SELECT pg_notify(\(NodeNoticeWire.channel), \(notice))", logger: logger)
        }
        return ConversationCommit(conversation: conversation, events: events, encodedEvents: encodedEvents)
    }

    /// Refuses an agent of another app (as not found) and an agent already holding `capacity`
    /// assigned conversations. The agent's row is locked first, after the conversation's (always in
    /// that order), so two nodes assigning to one agent count one after the other (decision 0006).
    private func checkCapacity(of agent: Participant, app: String, on connection: PostgresConnection) async throws {
        let agentID = agent.id ?? ""
        guard let row = try await rows("SELECT capacity FROM agents WHERE id = \(agentID) AND app_id = \(app) FOR UPDATE", on: connection).first
        else { throw StoreError.notFound("agent not found") }
        let capacity = try PostgresRows.int(row, "capacity")
        let load = try await rows(
            "SELECT count(*) AS load FROM conversations WHERE agent_id = \(agentID) AND state = 'assigned'", on: connection).first
            .map { try PostgresRows.int($0, "load") } ?? 0
        if load >= capacity { throw StoreError.atCapacity("the agent already handles \(load) of \(capacity) conversations") }
    }

    private func write(_ conversation: Conversation, queueRank: Int64?, isNew: Bool, on connection: PostgresConnection) async throws {
        let c = conversation
        if isNew {
            try await connection.query(
                """
                INSERT INTO conversations (id, app_id, queue_id, visitor_id, subject, attributes, state, agent_id, last_seq,
                    queue_rank, queued_at, created_at, updated_at)
                VALUES (\(c.id.rawValue), \(c.appID.rawValue), \(c.queueID.rawValue), \(c.visitorID.rawValue), \(c.subject),
                    \(PostgresRows.json(c.attributes)), \(c.state.rawValue), \(c.agentID?.rawValue), \(c.lastSeq), \(queueRank),
                    \(c.queuedAt.map(Timestamp.millis)), \(Timestamp.millis(c.createdAt)), \(Timestamp.millis(c.updatedAt)))
                """, logger: logger)
        } else {
            try await connection.query(
                """
                UPDATE conversations SET queue_id = \(c.queueID.rawValue), subject = \(c.subject), attributes = \(PostgresRows.json(c.attributes)),
                    state = \(c.state.rawValue), agent_id = \(c.agentID?.rawValue), last_seq = \(c.lastSeq), queue_rank = \(queueRank),
                    queued_at = \(c.queuedAt.map(Timestamp.millis)), updated_at = \(Timestamp.millis(c.updatedAt))
                WHERE id = \(c.id.rawValue)
                """, logger: logger)
        }
    }

    // MARK: Reads

    public func conversation(_ id: ConversationID, app: AppID) async throws -> Conversation? {
        try await rows("SELECT * FROM conversations WHERE id = \(id.rawValue) AND app_id = \(app.rawValue)").first.map(PostgresRows.conversation)
    }

    public func conversationAndRank(_ id: ConversationID, app: AppID) async throws -> ActiveConversation? {
        try await rows("SELECT * FROM conversations WHERE id = \(id.rawValue) AND app_id = \(app.rawValue)").first.map { row in
            ActiveConversation(conversation: try PostgresRows.conversation(row), queueRank: try PostgresRows.optionalInt(row, "queue_rank"))
        }
    }

    public func conversations(_ query: ConversationQuery) async throws -> [Conversation] {
        var bindings = PostgresBindings()
        func bind(_ value: String) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }
        var clauses = ["app_id = \(bind(query.appID.rawValue))"]
        if let visitorID = query.visitorID { clauses.append("visitor_id = \(bind(visitorID.rawValue))") }
        if let agentID = query.agentID { clauses.append("agent_id = \(bind(agentID.rawValue))") }
        if let states = query.states {
            clauses.append("state IN (\(states.map(\.rawValue).sorted().map(bind).joined(separator: ", ")))")
        }
        let order = switch query.order {
        case .recentActivity: "updated_at DESC, id DESC"
        case .queue: "queue_rank, id"
        }
        bindings.append(Int64(query.limit))
        let sql = "SELECT * FROM conversations WHERE \(clauses.joined(separator: " AND ")) ORDER BY \(order) LIMIT $\(bindings.count)"
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: bindings)).map(PostgresRows.conversation)
    }

    public func events(_ id: ConversationID, app: AppID, afterSeq: Int64, limit: Int) async throws -> [ConversationEvent] {
        try await rows(
            """
            SELECT e.body FROM events e JOIN conversations c ON c.id = e.conversation_id
            WHERE e.conversation_id = \(id.rawValue) AND c.app_id = \(app.rawValue) AND e.seq > \(afterSeq) ORDER BY e.seq LIMIT \(Int64(limit))
            """).map(PostgresRows.event)
    }

    public func events(_ id: ConversationID, app: AppID, beforeSeq: Int64, limit: Int) async throws -> [ConversationEvent] {
        try await rows(
            """
            SELECT e.body FROM events e JOIN conversations c ON c.id = e.conversation_id
            WHERE e.conversation_id = \(id.rawValue) AND c.app_id = \(app.rawValue) AND e.seq < \(beforeSeq) ORDER BY e.seq DESC LIMIT \(Int64(limit))
            """).map(PostgresRows.event).reversed()
    }

    public func activeConversations() async throws -> [ActiveConversation] {
        try await rows("SELECT * FROM conversations WHERE state IN ('queued', 'assigned') ORDER BY queue_rank, id").map {
            ActiveConversation(conversation: try PostgresRows.conversation($0), queueRank: try PostgresRows.optionalInt($0, "queue_rank"))
        }
    }

    public func readSeq(_ id: ConversationID, participant: Participant) async throws -> Int64 {
        try await rows(
            """
            SELECT read_seq FROM read_markers
            WHERE conversation_id = \(id.rawValue) AND participant_role = \(participant.role.rawValue) AND participant_id = \(participant.id ?? "")
            """).first.map { try PostgresRows.int($0, "read_seq") } ?? 0
    }
}
