import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    // MARK: Apps and queues

    public func insertApp(_ app: App, secretKey: String) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO apps (id, name, secret_key, created_at) VALUES (?, ?, ?, ?)",
                arguments: [app.id.rawValue, app.name, secretKey, Timestamp.millis(app.createdAt)])
        }
    }

    public func app(_ id: AppID) async throws -> StoredApp? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM apps WHERE id = ?", arguments: [id.rawValue]).map {
                StoredApp(app: SQLiteRows.app($0), secretKey: $0["secret_key"])
            }
        }
    }

    public func apps() async throws -> [App] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM apps ORDER BY created_at, id").map(SQLiteRows.app)
        }
    }

    public func updateApp(_ app: App, secretKey: String?) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "UPDATE apps SET name = ?, secret_key = COALESCE(?, secret_key) WHERE id = ?",
                arguments: [app.name, secretKey, app.id.rawValue])
            if db.changesCount == 0 { throw StoreError.notFound("app not found") }
        }
    }

    public func insertQueue(_ queue: Queue) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO queues (id, app_id, name, created_at) VALUES (?, ?, ?, ?)",
                arguments: [queue.id.rawValue, queue.appID.rawValue, queue.name, Timestamp.millis(queue.createdAt)])
        }
    }

    public func queues(app: AppID) async throws -> [Queue] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM queues WHERE app_id = ? ORDER BY created_at, id", arguments: [app.rawValue])
                .map(SQLiteRows.queue)
        }
    }

    public func updateQueue(_ queue: Queue) async throws {
        try await pool.write { db in
            try db.execute(sql: "UPDATE queues SET name = ? WHERE id = ? AND app_id = ?",
                           arguments: [queue.name, queue.id.rawValue, queue.appID.rawValue])
            if db.changesCount == 0 { throw StoreError.notFound("queue not found") }
        }
    }

    // MARK: Agents

    public func insertAgent(_ agent: Agent, passwordHash: String) async throws {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM agents WHERE email = ?", arguments: [agent.email]) == true {
                throw StoreError.duplicate("an agent with this email exists")
            }
            try db.execute(
                sql: """
                    INSERT INTO agents (id, app_id, name, email, password_hash, role, capacity, availability, disabled, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [agent.id.rawValue, agent.appID.rawValue, agent.name, agent.email, passwordHash, agent.role.rawValue,
                            agent.capacity, agent.availability.rawValue, agent.isDisabled, Timestamp.millis(agent.createdAt)])
            try Self.replaceQueues(of: agent, in: db)
        }
    }

    public func agent(_ id: AgentID) async throws -> StoredAgent? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM agents WHERE id = ?", arguments: [id.rawValue]).map { try Self.storedAgent($0, db) }
        }
    }

    public func agent(email: String) async throws -> StoredAgent? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM agents WHERE email = ?", arguments: [email]).map { try Self.storedAgent($0, db) }
        }
    }

    public func agents(app: AppID) async throws -> [Agent] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM agents WHERE app_id = ? ORDER BY created_at, id", arguments: [app.rawValue])
                .map { try Self.storedAgent($0, db).agent }
        }
    }

    public func allAgents() async throws -> [Agent] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM agents ORDER BY created_at, id").map { try Self.storedAgent($0, db).agent }
        }
    }

    public func updateAgent(_ agent: Agent, passwordHash: String?) async throws {
        try await pool.write { db in
            if try Bool.fetchOne(db, sql: "SELECT 1 FROM agents WHERE email = ? AND id <> ?", arguments: [agent.email, agent.id.rawValue]) == true {
                throw StoreError.duplicate("an agent with this email exists")
            }
            try db.execute(
                sql: """
                    UPDATE agents SET name = ?, email = ?, role = ?, capacity = ?, availability = ?, disabled = ?,
                        password_hash = COALESCE(?, password_hash)
                    WHERE id = ? AND app_id = ?
                    """,
                arguments: [agent.name, agent.email, agent.role.rawValue, agent.capacity, agent.availability.rawValue,
                            agent.isDisabled, passwordHash, agent.id.rawValue, agent.appID.rawValue])
            if db.changesCount == 0 { throw StoreError.notFound("agent not found") }
            try Self.replaceQueues(of: agent, in: db)
        }
    }

    private static func replaceQueues(of agent: Agent, in db: Database) throws {
        try db.execute(sql: "DELETE FROM agent_queues WHERE agent_id = ?", arguments: [agent.id.rawValue])
        for (position, queueID) in agent.queueIDs.enumerated() {
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM queues WHERE id = ? AND app_id = ?",
                                    arguments: [queueID.rawValue, agent.appID.rawValue]) == true
            else { throw StoreError.notFound("queue \(queueID) not found") }
            try db.execute(sql: "INSERT INTO agent_queues (agent_id, queue_id, position) VALUES (?, ?, ?)",
                           arguments: [agent.id.rawValue, queueID.rawValue, position])
        }
    }

    private static func storedAgent(_ row: Row, _ db: Database) throws -> StoredAgent {
        let queueIDs = try String.fetchAll(
            db, sql: "SELECT queue_id FROM agent_queues WHERE agent_id = ? ORDER BY position", arguments: [row["id"] as String]
        ).map(QueueID.init(rawValue:))
        return StoredAgent(agent: SQLiteRows.agent(row, queueIDs: queueIDs), passwordHash: row["password_hash"])
    }

    // MARK: Sessions

    public func insertSession(_ session: AgentSessionRecord) async throws {
        try await pool.write { db in
            try db.execute(
                sql: "INSERT INTO agent_sessions (token_hash, agent_id, app_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)",
                arguments: [session.tokenHash, session.agentID.rawValue, session.appID.rawValue,
                            Timestamp.millis(session.createdAt), Timestamp.millis(session.expiresAt)])
        }
    }

    public func session(tokenHash: String) async throws -> AgentSessionRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM agent_sessions WHERE token_hash = ?", arguments: [tokenHash]).map {
                AgentSessionRecord(
                    tokenHash: $0["token_hash"], agentID: AgentID(rawValue: $0["agent_id"]), appID: AppID(rawValue: $0["app_id"]),
                    createdAt: SQLiteRows.date($0, "created_at"), expiresAt: SQLiteRows.date($0, "expires_at"))
            }
        }
    }

    public func deleteSession(tokenHash: String) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM agent_sessions WHERE token_hash = ?", arguments: [tokenHash])
        }
    }

    public func deleteSessions(agent: AgentID) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM agent_sessions WHERE agent_id = ?", arguments: [agent.rawValue])
        }
    }

    // MARK: Visitors

    public func upsertVisitor(app: AppID, deviceID: String, profile: VisitorProfile, at: Date) async throws -> Visitor {
        try await pool.write { db in
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM visitors WHERE app_id = ? AND device_id = ?",
                                          arguments: [app.rawValue, deviceID]) {
                var visitor = SQLiteRows.visitor(row)
                try profile.apply(to: &visitor)
                try db.execute(sql: "UPDATE visitors SET name = ?, email = ?, attributes = ? WHERE id = ?",
                               arguments: [visitor.name, visitor.email, SQLiteRows.json(visitor.attributes), visitor.id.rawValue])
                return visitor
            }
            let visitor = Visitor(id: .generate(at: at), appID: app, deviceID: deviceID, name: profile.name,
                                  email: profile.email, attributes: profile.attributes ?? [:], createdAt: at)
            try db.execute(
                sql: "INSERT INTO visitors (id, app_id, device_id, name, email, attributes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [visitor.id.rawValue, app.rawValue, deviceID, visitor.name, visitor.email,
                            SQLiteRows.json(visitor.attributes), Timestamp.millis(at)])
            return visitor
        }
    }

    public func verifiedVisitor(
        app: AppID, userID: String, deviceID: String, profile: VisitorProfile, verifiedFields: [String], at: Date
    ) async throws -> VerifiedVisitor {
        try await pool.write { db in
            var visitor: Visitor
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM visitors WHERE app_id = ? AND user_id = ?", arguments: [app.rawValue, userID]) {
                visitor = SQLiteRows.visitor(row)
            } else {
                guard try Row.fetchOne(db, sql: "SELECT 1 FROM apps WHERE id = ?", arguments: [app.rawValue]) != nil else {
                    throw StoreError.notFound("app not found")
                }
                visitor = Visitor(id: .generate(at: at), appID: app, deviceID: Visitor.userDeviceID(userID), name: nil, email: nil,
                                  attributes: [:], createdAt: at, userID: userID)
                try db.execute(
                    sql: "INSERT INTO visitors (id, app_id, device_id, attributes, created_at, user_id) VALUES (?, ?, ?, '{}', ?, ?)",
                    arguments: [visitor.id.rawValue, app.rawValue, visitor.deviceID, Timestamp.millis(at), userID])
            }
            try profile.apply(to: &visitor)
            visitor.verifiedFields = Array(Set(verifiedFields)).sorted()
            try db.execute(
                sql: "UPDATE visitors SET name = ?, email = ?, attributes = ?, verified_fields = ? WHERE id = ?",
                arguments: [visitor.name, visitor.email, SQLiteRows.json(visitor.attributes), VerifiedFields.encode(verifiedFields),
                            visitor.id.rawValue])
            var moved: [ConversationID] = []
            if let anonymous = try String.fetchOne(
                db, sql: "SELECT id FROM visitors WHERE app_id = ? AND device_id = ? AND user_id IS NULL", arguments: [app.rawValue, deviceID]) {
                moved = try String.fetchAll(
                    db, sql: "SELECT id FROM conversations WHERE app_id = ? AND visitor_id = ? ORDER BY created_at, id",
                    arguments: [app.rawValue, anonymous]).map(ConversationID.init(rawValue:))
                try db.execute(sql: "UPDATE conversations SET visitor_id = ? WHERE app_id = ? AND visitor_id = ?",
                               arguments: [visitor.id.rawValue, app.rawValue, anonymous])
                try db.execute(
                    sql: """
                        UPDATE read_markers SET participant_id = ?
                        WHERE participant_role = 'visitor' AND participant_id = ?
                          AND conversation_id IN (SELECT id FROM conversations WHERE app_id = ? AND visitor_id = ?)
                        """,
                    arguments: [visitor.id.rawValue, anonymous, app.rawValue, visitor.id.rawValue])
            }
            return VerifiedVisitor(visitor: visitor, movedConversations: moved)
        }
    }

    public func revokeVisitorToken(hash: String, expiresAt: Date, now: Date) async throws {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM revoked_visitor_tokens WHERE expires_at < ?", arguments: [Timestamp.millis(now)])
            try db.execute(sql: "INSERT OR IGNORE INTO revoked_visitor_tokens (token_hash, expires_at) VALUES (?, ?)",
                           arguments: [hash, Timestamp.millis(expiresAt)])
        }
    }

    public func isVisitorTokenRevoked(hash: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT 1 FROM revoked_visitor_tokens WHERE token_hash = ?", arguments: [hash]) != nil
        }
    }

    public func visitor(_ id: VisitorID, app: AppID) async throws -> Visitor? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM visitors WHERE id = ? AND app_id = ?", arguments: [id.rawValue, app.rawValue])
                .map(SQLiteRows.visitor)
        }
    }
}
