import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

// MARK: - Outbox delivery (generic: webhooks now, push later)

extension PostgresStore {
    /// Writes an outbox entry: one row, or one per subscribed webhook endpoint (``OutboxTargets``).
    func enqueue(_ entry: OutboxEntry, on connection: PostgresConnection) async throws {
        let due = Timestamp.millis(entry.dueAt)
        switch entry.targets {
        case .single:
            try await connection.query(
                """
                INSERT INTO outbox (id, kind, app_id, conversation_id, seq, payload, due_at, attempts, created_at, target, message_id)
                VALUES (\(entry.id), \(entry.kind), \(entry.appID.rawValue), \(entry.conversationID.rawValue), \(entry.seq), \(entry.payload),
                    \(due), 0, \(due), '', \(entry.id))
                """, logger: logger)
        case .webhookEndpoints(let event):
            try await connection.query(
                """
                INSERT INTO outbox (id, kind, app_id, conversation_id, seq, payload, due_at, attempts, created_at, target, message_id)
                SELECT \(entry.id) || '.' || e.id, \(entry.kind), \(entry.appID.rawValue), \(entry.conversationID.rawValue), \(entry.seq),
                    \(entry.payload), \(due), 0, \(due), e.id, \(entry.id)
                FROM webhook_endpoints e
                WHERE e.app_id = \(entry.appID.rawValue) AND e.enabled AND (e.events = '' OR strpos(e.events, \(",\(event),")) > 0)
                ORDER BY e.id
                """, logger: logger)
        case .pushDevices(let visitor):
            try await connection.query(
                """
                INSERT INTO outbox (id, kind, app_id, conversation_id, seq, payload, due_at, attempts, created_at, target, message_id)
                SELECT \(entry.id) || '.' || d.device_id, \(entry.kind), \(entry.appID.rawValue), \(entry.conversationID.rawValue), \(entry.seq),
                    \(entry.payload), \(due), 0, \(due), d.device_id, \(entry.id)
                FROM push_devices d
                WHERE d.app_id = \(entry.appID.rawValue) AND d.visitor_id = \(visitor.rawValue)
                ORDER BY d.device_id
                """, logger: logger)
        }
    }

    /// `SKIP LOCKED`: nodes claiming at once take different rows, and none waits for another. A row
    /// another node holds (claimed, not yet recorded) still blocks its conversation's later rows:
    /// the `NOT EXISTS` reads it as waiting.
    public func claimOutbox(kind: String, now: Date, lease: TimeInterval, limit: Int) async throws -> [ClaimedOutboxRow] {
        try await transaction { connection in
            try await rows(
                """
                UPDATE outbox SET due_at = \(Timestamp.millis(now.addingTimeInterval(lease)))
                WHERE id IN (
                    SELECT o.id FROM outbox o
                    WHERE o.kind = \(kind) AND o.done_at IS NULL AND NOT o.held AND o.due_at <= \(Timestamp.millis(now))
                      AND NOT EXISTS (
                        SELECT 1 FROM outbox p
                        WHERE p.conversation_id = o.conversation_id AND p.target = o.target AND p.kind = o.kind AND p.done_at IS NULL
                          AND (p.seq, p.position) < (o.seq, o.position))
                    ORDER BY o.due_at, o.position LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED)
                RETURNING *
                """, on: connection
            ).map(Self.claimedRow).sorted { $0.createdAt < $1.createdAt }
        }
    }

    public func recordOutboxAttempt(_ id: String, _ attempt: OutboxAttemptRecord, body: String?, outcome: OutboxOutcome) async throws {
        try await transaction { connection in
            guard let row = try await rows("SELECT kind, target, attempts FROM outbox WHERE id = \(id) FOR UPDATE", on: connection).first
            else { return }
            let number = try PostgresRows.int(row, "attempts") + 1
            let at = Timestamp.millis(attempt.at)
            try await connection.query(
                """
                INSERT INTO outbox_attempts (outbox_id, number, at, status, response, error, duration_ms)
                VALUES (\(id), \(number), \(at), \(attempt.status.map(Int64.init)), \(attempt.response), \(attempt.error),
                    \(Int64((attempt.duration * 1000).rounded())))
                """, logger: logger)
            let lastError = OutboxAttemptRecord.summary(attempt)
            switch outcome {
            case .delivered:
                try await connection.query(
                    """
                    UPDATE outbox SET attempts = \(number), body = COALESCE(body, \(body)), status = 'delivered', done_at = \(at), last_error = NULL
                    WHERE id = \(id)
                    """, logger: logger)
            case .skipped(let reason):
                try await connection.query(
                    """
                    UPDATE outbox SET attempts = \(number), body = COALESCE(body, \(body)), status = 'skipped', done_at = \(at), last_error = \(reason)
                    WHERE id = \(id)
                    """, logger: logger)
            case .retry(let next):
                try await connection.query(
                    """
                    UPDATE outbox SET attempts = \(number), body = COALESCE(body, \(body)), due_at = \(Timestamp.millis(next)), last_error = \(lastError)
                    WHERE id = \(id)
                    """, logger: logger)
            case .failed(let disabling):
                try await connection.query(
                    """
                    UPDATE outbox SET attempts = \(number), body = COALESCE(body, \(body)), status = 'failed', done_at = \(at), last_error = \(lastError)
                    WHERE id = \(id)
                    """, logger: logger)
                if let reason = disabling {
                    let kind = try PostgresRows.string(row, "kind"), target = try PostgresRows.string(row, "target")
                    try await connection.query(
                        "UPDATE outbox SET held = true WHERE kind = \(kind) AND target = \(target) AND done_at IS NULL", logger: logger)
                    if kind == "webhook" {
                        try await connection.query(
                            "UPDATE webhook_endpoints SET enabled = false, disabled_reason = \(reason), updated_at = \(at) WHERE id = \(target)",
                            logger: logger)
                    }
                }
            }
        }
    }

    public func outboxRows(kind: String, target: String, limit: Int) async throws -> [OutboxRowRecord] {
        let found = try await rows(
            "SELECT * FROM outbox WHERE kind = \(kind) AND target = \(target) ORDER BY created_at DESC, position DESC LIMIT \(Int64(limit))")
        var records: [OutboxRowRecord] = []
        for row in found { records.append(try await rowRecord(row)) }
        return records
    }

    public func outboxRows(kind: String, app: AppID, limit: Int) async throws -> [OutboxRowRecord] {
        let found = try await rows(
            "SELECT * FROM outbox WHERE kind = \(kind) AND app_id = \(app.rawValue) ORDER BY created_at DESC, position DESC LIMIT \(Int64(limit))")
        var records: [OutboxRowRecord] = []
        for row in found { records.append(try await rowRecord(row)) }
        return records
    }

    public func outboxRow(_ id: String, kind: String, target: String) async throws -> OutboxRowRecord? {
        guard let row = try await rows("SELECT * FROM outbox WHERE id = \(id) AND kind = \(kind) AND target = \(target)").first else { return nil }
        return try await rowRecord(row)
    }

    public func resendOutbox(_ id: String, kind: String, target: String, at: Date) async throws -> Bool {
        try await !rows(
            """
            UPDATE outbox SET status = 'pending', done_at = NULL, held = false, due_at = \(Timestamp.millis(at))
            WHERE id = \(id) AND kind = \(kind) AND target = \(target) RETURNING id
            """).isEmpty
    }

    static func claimedRow(_ row: PostgresRandomAccessRow) throws -> ClaimedOutboxRow {
        let id = try PostgresRows.string(row, "id")
        return ClaimedOutboxRow(
            id: id, messageID: try PostgresRows.optionalString(row, "message_id") ?? id, kind: try PostgresRows.string(row, "kind"),
            appID: AppID(rawValue: try PostgresRows.string(row, "app_id")),
            conversationID: ConversationID(rawValue: try PostgresRows.string(row, "conversation_id")),
            target: try PostgresRows.string(row, "target"), payload: try PostgresRows.string(row, "payload"),
            body: try PostgresRows.optionalString(row, "body"), attempts: Int(try PostgresRows.int(row, "attempts")),
            createdAt: try PostgresRows.date(row, "created_at"))
    }

    private func rowRecord(_ row: PostgresRandomAccessRow) async throws -> OutboxRowRecord {
        let id = try PostgresRows.string(row, "id")
        let attempts = try await rows("SELECT * FROM outbox_attempts WHERE outbox_id = \(id) ORDER BY number").map { a in
            OutboxAttemptRecord(
                at: try PostgresRows.date(a, "at"), status: try PostgresRows.optionalInt(a, "status").map(Int.init),
                response: try PostgresRows.optionalString(a, "response"), error: try PostgresRows.optionalString(a, "error"),
                duration: Double(try PostgresRows.int(a, "duration_ms")) / 1000)
        }
        let status = try PostgresRows.string(row, "status")
        return OutboxRowRecord(
            row: try Self.claimedRow(row), status: status, nextAttemptAt: status == "pending" ? try PostgresRows.date(row, "due_at") : nil,
            lastError: try PostgresRows.optionalString(row, "last_error"), attempts: attempts)
    }
}

// MARK: - Webhook endpoints

extension PostgresStore {
    public func insertWebhookEndpoint(_ stored: StoredWebhookEndpoint) async throws {
        try await transaction { connection in
            guard try await exists("SELECT 1 FROM apps WHERE id = \(stored.endpoint.appID.rawValue)", on: connection)
            else { throw StoreError.notFound("app not found") }
            let e = stored.endpoint
            try await connection.query(
                """
                INSERT INTO webhook_endpoints (id, app_id, url, description, events, enabled, disabled_reason, secret, previous_secret,
                    previous_secret_expires_at, created_at, updated_at)
                VALUES (\(e.id.rawValue), \(e.appID.rawValue), \(e.url), \(e.description), \(WebhookEvents.column(e.events)), \(e.isEnabled),
                    \(e.disabledReason), \(stored.sealedSecret), \(stored.sealedPreviousSecret), \(e.previousSecretExpiresAt.map(Timestamp.millis)),
                    \(Timestamp.millis(e.createdAt)), \(Timestamp.millis(e.updatedAt)))
                """, logger: logger)
        }
    }

    public func webhookApps() async throws -> Set<AppID> {
        Set(try await rows("SELECT DISTINCT app_id FROM webhook_endpoints WHERE enabled").map { AppID(rawValue: try PostgresRows.string($0, "app_id")) })
    }

    public func webhookEndpoints(app: AppID) async throws -> [StoredWebhookEndpoint] {
        try await rows("SELECT * FROM webhook_endpoints WHERE app_id = \(app.rawValue) ORDER BY created_at, id").map(Self.webhookEndpoint)
    }

    public func webhookEndpoint(_ id: WebhookEndpointID, app: AppID) async throws -> StoredWebhookEndpoint? {
        try await rows("SELECT * FROM webhook_endpoints WHERE id = \(id.rawValue) AND app_id = \(app.rawValue)").first.map(Self.webhookEndpoint)
    }

    public func updateWebhookEndpoint(_ stored: StoredWebhookEndpoint) async throws {
        let e = stored.endpoint
        let updated = try await rows(
            """
            UPDATE webhook_endpoints SET url = \(e.url), description = \(e.description), events = \(WebhookEvents.column(e.events)),
                secret = \(stored.sealedSecret), previous_secret = \(stored.sealedPreviousSecret),
                previous_secret_expires_at = \(e.previousSecretExpiresAt.map(Timestamp.millis)), updated_at = \(Timestamp.millis(e.updatedAt))
            WHERE id = \(e.id.rawValue) AND app_id = \(e.appID.rawValue) RETURNING id
            """)
        if updated.isEmpty { throw StoreError.notFound("webhook not found") }
    }

    public func setWebhookEndpointEnabled(_ id: WebhookEndpointID, app: AppID, enabled: Bool, reason: String?, at: Date) async throws -> Bool {
        try await transaction { connection in
            let changed = try await rows(
                """
                UPDATE webhook_endpoints SET enabled = \(enabled), disabled_reason = \(enabled ? nil : reason), updated_at = \(Timestamp.millis(at))
                WHERE id = \(id.rawValue) AND app_id = \(app.rawValue) RETURNING id
                """, on: connection)
            guard !changed.isEmpty else { return false }
            if enabled {
                try await connection.query(
                    """
                    UPDATE outbox SET held = false, due_at = LEAST(due_at, \(Timestamp.millis(at)))
                    WHERE kind = 'webhook' AND target = \(id.rawValue) AND done_at IS NULL
                    """, logger: logger)
            } else {
                try await connection.query(
                    "UPDATE outbox SET held = true WHERE kind = 'webhook' AND target = \(id.rawValue) AND done_at IS NULL", logger: logger)
            }
            return true
        }
    }

    public func deleteWebhookEndpoint(_ id: WebhookEndpointID, app: AppID, at: Date) async throws -> Bool {
        try await transaction { connection in
            let deleted = try await rows(
                "DELETE FROM webhook_endpoints WHERE id = \(id.rawValue) AND app_id = \(app.rawValue) RETURNING id", on: connection)
            guard !deleted.isEmpty else { return false }
            try await connection.query(
                """
                UPDATE outbox SET status = 'failed', done_at = \(Timestamp.millis(at)), last_error = 'endpoint deleted'
                WHERE kind = 'webhook' AND target = \(id.rawValue) AND done_at IS NULL
                """, logger: logger)
            return true
        }
    }

    static func webhookEndpoint(_ row: PostgresRandomAccessRow) throws -> StoredWebhookEndpoint {
        StoredWebhookEndpoint(
            endpoint: WebhookEndpoint(
                id: WebhookEndpointID(rawValue: try PostgresRows.string(row, "id")), appID: AppID(rawValue: try PostgresRows.string(row, "app_id")),
                url: try PostgresRows.string(row, "url"), description: try PostgresRows.optionalString(row, "description"),
                events: WebhookEvents.decode(try PostgresRows.string(row, "events")), isEnabled: try row["enabled"].decode(Bool.self),
                disabledReason: try PostgresRows.optionalString(row, "disabled_reason"),
                previousSecretExpiresAt: try PostgresRows.optionalInt(row, "previous_secret_expires_at").map(Timestamp.date(millis:)),
                createdAt: try PostgresRows.date(row, "created_at"), updatedAt: try PostgresRows.date(row, "updated_at")),
            sealedSecret: try PostgresRows.string(row, "secret"), sealedPreviousSecret: try PostgresRows.optionalString(row, "previous_secret"))
    }
}
