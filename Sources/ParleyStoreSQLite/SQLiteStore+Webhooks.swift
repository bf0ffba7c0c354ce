import Foundation
import GRDB
import ParleyCore
import ParleyStore

// MARK: - Outbox delivery (generic: webhooks now, push later)

extension SQLiteStore {
    /// Writes an outbox entry: one row, or one per subscribed webhook endpoint (``OutboxTargets``).
    static func enqueue(_ entry: OutboxEntry, in db: Database) throws {
        let due = Timestamp.millis(entry.dueAt)
        switch entry.targets {
        case .single:
            try db.cachedStatement(sql: """
                INSERT INTO outbox (id, kind, app_id, conversation_id, seq, payload, due_at, attempts, created_at, target, message_id)
                VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, '', ?)
                """).execute(arguments: [
                    entry.id, entry.kind, entry.appID.rawValue, entry.conversationID.rawValue, entry.seq, entry.payload, due, due, entry.id,
                ])
        case .webhookEndpoints(let event):
            try db.cachedStatement(sql: """
                INSERT INTO outbox (id, kind, app_id, conversation_id, seq, payload, due_at, attempts, created_at, target, message_id)
                SELECT ? || '.' || e.id, ?, ?, ?, ?, ?, ?, 0, ?, e.id, ?
                FROM webhook_endpoints e
                WHERE e.app_id = ? AND e.enabled = 1 AND (e.events = '' OR instr(e.events, ?) > 0)
                ORDER BY e.id
                """).execute(arguments: [
                    entry.id, entry.kind, entry.appID.rawValue, entry.conversationID.rawValue, entry.seq, entry.payload, due, due, entry.id,
                    entry.appID.rawValue, ",\(event),",
                ])
        case .pushDevices(let visitor):
            try db.cachedStatement(sql: """
                INSERT INTO outbox (id, kind, app_id, conversation_id, seq, payload, due_at, attempts, created_at, target, message_id)
                SELECT ? || '.' || d.device_id, ?, ?, ?, ?, ?, ?, 0, ?, d.device_id, ?
                FROM push_devices d
                WHERE d.app_id = ? AND d.visitor_id = ?
                ORDER BY d.device_id
                """).execute(arguments: [
                    entry.id, entry.kind, entry.appID.rawValue, entry.conversationID.rawValue, entry.seq, entry.payload, due, due, entry.id,
                    entry.appID.rawValue, visitor.rawValue,
                ])
        }
    }

    public func claimOutbox(kind: String, now: Date, lease: TimeInterval, limit: Int) async throws -> [ClaimedOutboxRow] {
        try await committer.write { db in
            let rows = try Row.fetchAll(
                db,
                sql: """
                    SELECT o.* FROM outbox o
                    WHERE o.kind = ? AND o.done_at IS NULL AND o.held = 0 AND o.due_at <= ?
                      AND NOT EXISTS (
                        SELECT 1 FROM outbox p
                        WHERE p.conversation_id = o.conversation_id AND p.target = o.target AND p.kind = o.kind AND p.done_at IS NULL
                          AND (p.seq < o.seq OR (p.seq = o.seq AND p.rowid < o.rowid)))
                    ORDER BY o.due_at, o.rowid LIMIT ?
                    """,
                arguments: [kind, Timestamp.millis(now), limit])
            let until = Timestamp.millis(now.addingTimeInterval(lease))
            for row in rows {
                try db.execute(sql: "UPDATE outbox SET due_at = ? WHERE id = ?", arguments: [until, row["id"] as String])
            }
            return rows.map(Self.claimedRow)
        }
    }

    public func recordOutboxAttempt(_ id: String, _ attempt: OutboxAttemptRecord, body: String?, outcome: OutboxOutcome) async throws {
        try await committer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT kind, target, attempts FROM outbox WHERE id = ?", arguments: [id]) else { return }
            let number = (row["attempts"] as Int) + 1
            let at = Timestamp.millis(attempt.at)
            try db.execute(
                sql: "INSERT INTO outbox_attempts (outbox_id, number, at, status, response, error, duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: [id, number, at, attempt.status, attempt.response, attempt.error, Int((attempt.duration * 1000).rounded())])
            let lastError = OutboxAttemptRecord.summary(attempt)
            switch outcome {
            case .delivered:
                try db.execute(
                    sql: "UPDATE outbox SET attempts = ?, body = COALESCE(body, ?), status = 'delivered', done_at = ?, last_error = NULL WHERE id = ?",
                    arguments: [number, body, at, id])
            case .skipped(let reason):
                try db.execute(
                    sql: "UPDATE outbox SET attempts = ?, body = COALESCE(body, ?), status = 'skipped', done_at = ?, last_error = ? WHERE id = ?",
                    arguments: [number, body, at, reason, id])
            case .retry(let next):
                try db.execute(
                    sql: "UPDATE outbox SET attempts = ?, body = COALESCE(body, ?), due_at = ?, last_error = ? WHERE id = ?",
                    arguments: [number, body, Timestamp.millis(next), lastError, id])
            case .failed(let disabling):
                try db.execute(
                    sql: "UPDATE outbox SET attempts = ?, body = COALESCE(body, ?), status = 'failed', done_at = ?, last_error = ? WHERE id = ?",
                    arguments: [number, body, at, lastError, id])
                if let reason = disabling {
                    let kind: String = row["kind"], target: String = row["target"]
                    try db.execute(sql: "UPDATE outbox SET held = 1 WHERE kind = ? AND target = ? AND done_at IS NULL", arguments: [kind, target])
                    if kind == "webhook" {
                        try db.execute(sql: "UPDATE webhook_endpoints SET enabled = 0, disabled_reason = ?, updated_at = ? WHERE id = ?",
                                       arguments: [reason, at, target])
                    }
                }
            }
        }
    }

    public func outboxRows(kind: String, target: String, limit: Int) async throws -> [OutboxRowRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM outbox WHERE kind = ? AND target = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
                arguments: [kind, target, limit]
            ).map { try Self.rowRecord($0, in: db) }
        }
    }

    public func outboxRows(kind: String, app: AppID, limit: Int) async throws -> [OutboxRowRecord] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT * FROM outbox WHERE kind = ? AND app_id = ? ORDER BY created_at DESC, rowid DESC LIMIT ?",
                arguments: [kind, app.rawValue, limit]
            ).map { try Self.rowRecord($0, in: db) }
        }
    }

    public func outboxRow(_ id: String, kind: String, target: String) async throws -> OutboxRowRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM outbox WHERE id = ? AND kind = ? AND target = ?", arguments: [id, kind, target])
                .map { try Self.rowRecord($0, in: db) }
        }
    }

    public func resendOutbox(_ id: String, kind: String, target: String, at: Date) async throws -> Bool {
        try await committer.write { db in
            try db.execute(
                sql: "UPDATE outbox SET status = 'pending', done_at = NULL, held = 0, due_at = ? WHERE id = ? AND kind = ? AND target = ?",
                arguments: [Timestamp.millis(at), id, kind, target])
            return db.changesCount > 0
        }
    }

    static func claimedRow(_ row: Row) -> ClaimedOutboxRow {
        let id: String = row["id"]
        return ClaimedOutboxRow(
            id: id, messageID: (row["message_id"] as String?) ?? id, kind: row["kind"], appID: AppID(rawValue: row["app_id"]),
            conversationID: ConversationID(rawValue: row["conversation_id"]), target: row["target"], payload: row["payload"],
            body: row["body"], attempts: row["attempts"], createdAt: SQLiteRows.date(row, "created_at"))
    }

    static func rowRecord(_ row: Row, in db: Database) throws -> OutboxRowRecord {
        let attempts = try Row.fetchAll(db, sql: "SELECT * FROM outbox_attempts WHERE outbox_id = ? ORDER BY number", arguments: [row["id"] as String])
            .map { a in
                OutboxAttemptRecord(at: SQLiteRows.date(a, "at"), status: a["status"], response: a["response"], error: a["error"],
                                    duration: Double(a["duration_ms"] as Int) / 1000)
            }
        let status: String = row["status"]
        return OutboxRowRecord(
            row: claimedRow(row), status: status, nextAttemptAt: status == "pending" ? SQLiteRows.date(row, "due_at") : nil,
            lastError: row["last_error"], attempts: attempts)
    }
}

// MARK: - Webhook endpoints

extension SQLiteStore {
    public func insertWebhookEndpoint(_ stored: StoredWebhookEndpoint) async throws {
        try await committer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM apps WHERE id = ?", arguments: [stored.endpoint.appID.rawValue]) == true
            else { throw StoreError.notFound("app not found") }
            let e = stored.endpoint
            try db.execute(
                sql: """
                    INSERT INTO webhook_endpoints (id, app_id, url, description, events, enabled, disabled_reason, secret, previous_secret,
                        previous_secret_expires_at, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [e.id.rawValue, e.appID.rawValue, e.url, e.description, WebhookEvents.column(e.events), e.isEnabled, e.disabledReason,
                            stored.sealedSecret, stored.sealedPreviousSecret, e.previousSecretExpiresAt.map(Timestamp.millis),
                            Timestamp.millis(e.createdAt), Timestamp.millis(e.updatedAt)])
        }
    }

    public func webhookApps() async throws -> Set<AppID> {
        try await pool.read { db in
            Set(try String.fetchAll(db, sql: "SELECT DISTINCT app_id FROM webhook_endpoints WHERE enabled = 1").map(AppID.init(rawValue:)))
        }
    }

    public func webhookEndpoints(app: AppID) async throws -> [StoredWebhookEndpoint] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM webhook_endpoints WHERE app_id = ? ORDER BY created_at, id", arguments: [app.rawValue])
                .map(Self.webhookEndpoint)
        }
    }

    public func webhookEndpoint(_ id: WebhookEndpointID, app: AppID) async throws -> StoredWebhookEndpoint? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM webhook_endpoints WHERE id = ? AND app_id = ?", arguments: [id.rawValue, app.rawValue])
                .map(Self.webhookEndpoint)
        }
    }

    public func updateWebhookEndpoint(_ stored: StoredWebhookEndpoint) async throws {
        try await committer.write { db in
            let e = stored.endpoint
            try db.execute(
                sql: """
                    UPDATE webhook_endpoints SET url = ?, description = ?, events = ?, secret = ?, previous_secret = ?,
                        previous_secret_expires_at = ?, updated_at = ?
                    WHERE id = ? AND app_id = ?
                    """,
                arguments: [e.url, e.description, WebhookEvents.column(e.events), stored.sealedSecret, stored.sealedPreviousSecret,
                            e.previousSecretExpiresAt.map(Timestamp.millis), Timestamp.millis(e.updatedAt), e.id.rawValue, e.appID.rawValue])
            if db.changesCount == 0 { throw StoreError.notFound("webhook not found") }
        }
    }

    public func setWebhookEndpointEnabled(_ id: WebhookEndpointID, app: AppID, enabled: Bool, reason: String?, at: Date) async throws -> Bool {
        try await committer.write { db in
            try db.execute(
                sql: "UPDATE webhook_endpoints SET enabled = ?, disabled_reason = ?, updated_at = ? WHERE id = ? AND app_id = ?",
                arguments: [enabled, enabled ? nil : reason, Timestamp.millis(at), id.rawValue, app.rawValue])
            guard db.changesCount > 0 else { return false }
            if enabled {
                try db.execute(sql: "UPDATE outbox SET held = 0, due_at = MIN(due_at, ?) WHERE kind = 'webhook' AND target = ? AND done_at IS NULL",
                               arguments: [Timestamp.millis(at), id.rawValue])
            } else {
                try db.execute(sql: "UPDATE outbox SET held = 1 WHERE kind = 'webhook' AND target = ? AND done_at IS NULL", arguments: [id.rawValue])
            }
            return true
        }
    }

    public func deleteWebhookEndpoint(_ id: WebhookEndpointID, app: AppID, at: Date) async throws -> Bool {
        try await committer.write { db in
            try db.execute(sql: "DELETE FROM webhook_endpoints WHERE id = ? AND app_id = ?", arguments: [id.rawValue, app.rawValue])
            guard db.changesCount > 0 else { return false }
            try db.execute(
                sql: """
                    UPDATE outbox SET status = 'failed', done_at = ?, last_error = 'endpoint deleted'
                    WHERE kind = 'webhook' AND target = ? AND done_at IS NULL
                    """,
                arguments: [Timestamp.millis(at), id.rawValue])
            return true
        }
    }

    static func webhookEndpoint(_ row: Row) -> StoredWebhookEndpoint {
        StoredWebhookEndpoint(
            endpoint: WebhookEndpoint(
                id: WebhookEndpointID(rawValue: row["id"]), appID: AppID(rawValue: row["app_id"]), url: row["url"], description: row["description"],
                events: WebhookEvents.decode(row["events"]), isEnabled: row["enabled"], disabledReason: row["disabled_reason"],
                previousSecretExpiresAt: SQLiteRows.optionalDate(row, "previous_secret_expires_at"), createdAt: SQLiteRows.date(row, "created_at"),
                updatedAt: SQLiteRows.date(row, "updated_at")),
            sealedSecret: row["secret"], sealedPreviousSecret: row["previous_secret"])
    }
}
