import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    // MARK: Apps and queues

    public func insertApp(_ app: App, secretKey: String) async throws {
        try await execute(
            "INSERT INTO apps (id, name, secret_key, created_at) VALUES (\(app.id.rawValue), \(app.name), \(secretKey), \(Timestamp.millis(app.createdAt)))")
    }

    public func app(_ id: AppID) async throws -> StoredApp? {
        try await rows("SELECT * FROM apps WHERE id = \(id.rawValue)").first.map {
            StoredApp(app: try PostgresRows.app($0), secretKey: try PostgresRows.string($0, "secret_key"))
        }
    }

    public func apps() async throws -> [App] {
        try await rows("SELECT * FROM apps ORDER BY created_at, id").map(PostgresRows.app)
    }

    public func updateApp(_ app: App, secretKey: String?) async throws {
        let updated = try await rows(
            "UPDATE apps SET name = \(app.name), secret_key = COALESCE(\(secretKey), secret_key) WHERE id = \(app.id.rawValue) RETURNING id")
        if updated.isEmpty { throw StoreError.notFound("app not found") }
    }

    public func insertQueue(_ queue: Queue) async throws {
        try await execute(
            "INSERT INTO queues (id, app_id, name, created_at) VALUES (\(queue.id.rawValue), \(queue.appID.rawValue), \(queue.name), \(Timestamp.millis(queue.createdAt)))")
    }

    public func queues(app: AppID) async throws -> [Queue] {
        try await rows("SELECT * FROM queues WHERE app_id = \(app.rawValue) ORDER BY created_at, id").map(PostgresRows.queue)
    }

    public func updateQueue(_ queue: Queue) async throws {
        let updated = try await rows(
            "UPDATE queues SET name = \(queue.name) WHERE id = \(queue.id.rawValue) AND app_id = \(queue.appID.rawValue) RETURNING id")
        if updated.isEmpty { throw StoreError.notFound("queue not found") }
    }

    // MARK: Agents

    public func insertAgent(_ agent: Agent, passwordHash: String) async throws {
        do {
            try await transaction { connection in
                try await connection.query(
                    """
                    INSERT INTO agents (id, app_id, name, email, password_hash, role, capacity, availability, disabled, created_at)
                    VALUES (\(agent.id.rawValue), \(agent.appID.rawValue), \(agent.name), \(agent.email), \(passwordHash),
                        \(agent.role.rawValue), \(Int64(agent.capacity)), \(agent.availability.rawValue), \(agent.isDisabled),
                        \(Timestamp.millis(agent.createdAt)))
                    """, logger: logger)
                try await replaceQueues(of: agent, on: connection)
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.duplicate("an agent with this email exists")
        }
    }

    public func agent(_ id: AgentID) async throws -> StoredAgent? {
        try await storedAgents("SELECT * FROM agents WHERE id = \(id.rawValue)").first
    }

    public func agent(email: String) async throws -> StoredAgent? {
        try await storedAgents("SELECT * FROM agents WHERE lower(email) = lower(\(email))").first
    }

    public func agents(app: AppID) async throws -> [Agent] {
        try await storedAgents("SELECT * FROM agents WHERE app_id = \(app.rawValue) ORDER BY created_at, id").map(\.agent)
    }

    public func allAgents() async throws -> [Agent] {
        try await storedAgents("SELECT * FROM agents ORDER BY created_at, id").map(\.agent)
    }

    public func updateAgent(_ agent: Agent, passwordHash: String?) async throws {
        do {
            try await transaction { connection in
                let updated = try await rows(
                    """
                    UPDATE agents SET name = \(agent.name), email = \(agent.email), role = \(agent.role.rawValue),
                        capacity = \(Int64(agent.capacity)), availability = \(agent.availability.rawValue), disabled = \(agent.isDisabled),
                        password_hash = COALESCE(\(passwordHash), password_hash)
                    WHERE id = \(agent.id.rawValue) AND app_id = \(agent.appID.rawValue) RETURNING id
                    """, on: connection)
                if updated.isEmpty { throw StoreError.notFound("agent not found") }
                try await replaceQueues(of: agent, on: connection)
            }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.duplicate("an agent with this email exists")
        }
    }

    private func replaceQueues(of agent: Agent, on connection: PostgresConnection) async throws {
        try await connection.query("DELETE FROM agent_queues WHERE agent_id = \(agent.id.rawValue)", logger: logger)
        for (position, queueID) in agent.queueIDs.enumerated() {
            guard try await exists("SELECT 1 FROM queues WHERE id = \(queueID.rawValue) AND app_id = \(agent.appID.rawValue)", on: connection)
            else { throw StoreError.notFound("queue \(queueID) not found") }
            try await connection.query(
                "INSERT INTO agent_queues (agent_id, queue_id, position) VALUES (\(agent.id.rawValue), \(queueID.rawValue), \(Int64(position)))",
                logger: logger)
        }
    }

    /// Agents with their queues (in the order they were given) and password hashes.
    private func storedAgents(_ query: PostgresQuery) async throws -> [StoredAgent] {
        let agentRows = try await rows(query)
        guard !agentRows.isEmpty else { return [] }
        let ids = try agentRows.map { try PostgresRows.string($0, "id") }
        var queues: [String: [QueueID]] = [:]
        for row in try await rows("SELECT agent_id, queue_id FROM agent_queues WHERE agent_id = ANY(\(ids)) ORDER BY agent_id, position") {
            queues[try PostgresRows.string(row, "agent_id"), default: []].append(QueueID(rawValue: try PostgresRows.string(row, "queue_id")))
        }
        return try agentRows.map { row in
            let id = try PostgresRows.string(row, "id")
            return StoredAgent(agent: try PostgresRows.agent(row, queueIDs: queues[id] ?? []), passwordHash: try PostgresRows.string(row, "password_hash"))
        }
    }

    // MARK: Sessions

    public func insertSession(_ session: AgentSessionRecord) async throws {
        try await execute(
            """
            INSERT INTO agent_sessions (token_hash, agent_id, app_id, created_at, expires_at)
            VALUES (\(session.tokenHash), \(session.agentID.rawValue), \(session.appID.rawValue),
                \(Timestamp.millis(session.createdAt)), \(Timestamp.millis(session.expiresAt)))
            """)
    }

    public func session(tokenHash: String) async throws -> AgentSessionRecord? {
        try await rows("SELECT * FROM agent_sessions WHERE token_hash = \(tokenHash)").first.map {
            AgentSessionRecord(
                tokenHash: try PostgresRows.string($0, "token_hash"), agentID: AgentID(rawValue: try PostgresRows.string($0, "agent_id")),
                appID: AppID(rawValue: try PostgresRows.string($0, "app_id")), createdAt: try PostgresRows.date($0, "created_at"),
                expiresAt: try PostgresRows.date($0, "expires_at"))
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await execute("DELETE FROM agent_sessions WHERE token_hash = \(tokenHash)")
    }

    public func deleteSessions(agent: AgentID) async throws {
        try await execute("DELETE FROM agent_sessions WHERE agent_id = \(agent.rawValue)")
    }

    // MARK: Visitors

    public func upsertVisitor(app: AppID, deviceID: String, profile: VisitorProfile, at: Date) async throws -> Visitor {
        try await transaction { connection in
            // A new device inserts; a known one (or one inserted by a concurrent call) is locked and merged.
            let fresh = Visitor(id: .generate(at: at), appID: app, deviceID: deviceID, name: profile.name,
                                email: profile.email, attributes: profile.attributes ?? [:], createdAt: at)
            let inserted = try await rows(
                """
                INSERT INTO visitors (id, app_id, device_id, name, email, attributes, created_at)
                VALUES (\(fresh.id.rawValue), \(app.rawValue), \(deviceID), \(fresh.name), \(fresh.email),
                    \(PostgresRows.json(fresh.attributes)), \(Timestamp.millis(at)))
                ON CONFLICT (app_id, device_id) DO NOTHING RETURNING id
                """, on: connection)
            if !inserted.isEmpty { return fresh }
            guard let row = try await rows(
                "SELECT * FROM visitors WHERE app_id = \(app.rawValue) AND device_id = \(deviceID) FOR UPDATE", on: connection).first
            else { throw StoreError.notFound("visitor not found") }
            var visitor = try PostgresRows.visitor(row)
            try profile.apply(to: &visitor)
            try await connection.query(
                """
                UPDATE visitors SET name = \(visitor.name), email = \(visitor.email), attributes = \(PostgresRows.json(visitor.attributes))
                WHERE id = \(visitor.id.rawValue)
                """, logger: logger)
            return visitor
        }
    }

    public func visitor(_ id: VisitorID, app: AppID) async throws -> Visitor? {
        try await rows("SELECT * FROM visitors WHERE id = \(id.rawValue) AND app_id = \(app.rawValue)").first.map(PostgresRows.visitor)
    }

    public func verifiedVisitor(
        app: AppID, userID: String, deviceID: String, profile: VisitorProfile, verifiedFields: [String], at: Date
    ) async throws -> VerifiedVisitor {
        try await transaction { connection in
            guard try await exists("SELECT 1 FROM apps WHERE id = \(app.rawValue)", on: connection) else { throw StoreError.notFound("app not found") }
            // Made on first sign-in; two concurrent first sign-ins meet at the unique index, and the
            // loser finds (and locks) the winner's row.
            let fresh = Visitor(id: .generate(at: at), appID: app, deviceID: Visitor.userDeviceID(userID), name: nil, email: nil,
                                attributes: [:], createdAt: at, userID: userID)
            try await connection.query(
                """
                INSERT INTO visitors (id, app_id, device_id, attributes, created_at, user_id)
                VALUES (\(fresh.id.rawValue), \(app.rawValue), \(fresh.deviceID), '{}', \(Timestamp.millis(at)), \(userID))
                ON CONFLICT DO NOTHING
                """, logger: logger)
            guard let row = try await rows(
                "SELECT * FROM visitors WHERE app_id = \(app.rawValue) AND user_id = \(userID) FOR UPDATE", on: connection).first
            else { throw StoreError.notFound("visitor not found") }
            var visitor = try PostgresRows.visitor(row)
            try profile.apply(to: &visitor)
            visitor.verifiedFields = Array(Set(verifiedFields)).sorted()
            try await connection.query(
                """
                UPDATE visitors SET name = \(visitor.name), email = \(visitor.email), attributes = \(PostgresRows.json(visitor.attributes)),
                    verified_fields = \(VerifiedFields.encode(verifiedFields))
                WHERE id = \(visitor.id.rawValue)
                """, logger: logger)
            var moved: [ConversationID] = []
            if let anonymous = try await rows(
                "SELECT id FROM visitors WHERE app_id = \(app.rawValue) AND device_id = \(deviceID) AND user_id IS NULL FOR UPDATE",
                on: connection).first.map({ try PostgresRows.string($0, "id") }) {
                moved = try await rows(
                    """
                    UPDATE conversations SET visitor_id = \(visitor.id.rawValue)
                    WHERE app_id = \(app.rawValue) AND visitor_id = \(anonymous) RETURNING id, created_at
                    """, on: connection)
                    .map { (ConversationID(rawValue: try PostgresRows.string($0, "id")), try PostgresRows.int($0, "created_at")) }
                    .sorted { ($0.1, $0.0.rawValue) < ($1.1, $1.0.rawValue) }.map(\.0)
                try await connection.query(
                    """
                    UPDATE read_markers SET participant_id = \(visitor.id.rawValue)
                    WHERE participant_role = 'visitor' AND participant_id = \(anonymous)
                      AND conversation_id IN (SELECT id FROM conversations WHERE app_id = \(app.rawValue) AND visitor_id = \(visitor.id.rawValue))
                    """, logger: logger)
            }
            return VerifiedVisitor(visitor: visitor, movedConversations: moved)
        }
    }

    public func revokeVisitorToken(hash: String, expiresAt: Date, now: Date) async throws {
        try await transaction { connection in
            try await connection.query("DELETE FROM revoked_visitor_tokens WHERE expires_at < \(Timestamp.millis(now))", logger: logger)
            try await connection.query(
                """
                INSERT INTO revoked_visitor_tokens (token_hash, expires_at) VALUES (\(hash), \(Timestamp.millis(expiresAt)))
                ON CONFLICT (token_hash) DO NOTHING
                """, logger: logger)
        }
    }

    public func isVisitorTokenRevoked(hash: String) async throws -> Bool {
        try await exists("SELECT 1 FROM revoked_visitor_tokens WHERE token_hash = \(hash)")
    }
}
