import Foundation
import Logging
import PostgresNIO

/// The PostgreSQL schema as named, append-only migrations, mirroring SQLite's (same names, same
/// tables). Never edit a migration that has shipped: add a new one. Each runs in its own transaction
/// under an advisory lock, so nodes starting together migrate once.
enum PostgresMigrations {
    static let all: [(name: String, sql: [String])] = [
        ("0001-core", [
            "CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            "CREATE TABLE apps (id TEXT PRIMARY KEY, name TEXT NOT NULL, secret_key TEXT NOT NULL, created_at BIGINT NOT NULL)",
            """
            CREATE TABLE queues (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id), name TEXT NOT NULL, created_at BIGINT NOT NULL)
            """,
            "CREATE INDEX queues_app ON queues(app_id, created_at)",
            """
            CREATE TABLE agents (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id), name TEXT NOT NULL,
                email TEXT NOT NULL, password_hash TEXT NOT NULL,
                role TEXT NOT NULL CHECK (role IN ('agent', 'admin')), capacity BIGINT NOT NULL CHECK (capacity >= 0),
                availability TEXT NOT NULL CHECK (availability IN ('online', 'away', 'offline')),
                disabled BOOLEAN NOT NULL DEFAULT false, created_at BIGINT NOT NULL)
            """,
            "CREATE UNIQUE INDEX agents_email ON agents(lower(email))",
            "CREATE INDEX agents_app ON agents(app_id, created_at)",
            """
            CREATE TABLE agent_queues (
                agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
                queue_id TEXT NOT NULL REFERENCES queues(id) ON DELETE CASCADE,
                position BIGINT NOT NULL, PRIMARY KEY (agent_id, queue_id))
            """,
            """
            CREATE TABLE agent_sessions (
                token_hash TEXT PRIMARY KEY, agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
                app_id TEXT NOT NULL REFERENCES apps(id), created_at BIGINT NOT NULL, expires_at BIGINT NOT NULL)
            """,
            "CREATE INDEX agent_sessions_agent ON agent_sessions(agent_id)",
            """
            CREATE TABLE visitors (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id), device_id TEXT NOT NULL,
                name TEXT, email TEXT, attributes TEXT NOT NULL DEFAULT '{}', created_at BIGINT NOT NULL,
                UNIQUE (app_id, device_id))
            """,
            """
            CREATE TABLE conversations (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id), queue_id TEXT NOT NULL REFERENCES queues(id),
                visitor_id TEXT NOT NULL REFERENCES visitors(id), subject TEXT, attributes TEXT NOT NULL DEFAULT '{}',
                state TEXT NOT NULL CHECK (state IN ('queued', 'assigned', 'ended')), agent_id TEXT REFERENCES agents(id),
                last_seq BIGINT NOT NULL, queue_rank BIGINT, queued_at BIGINT,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
            """,
            "CREATE INDEX conversations_app_state ON conversations(app_id, state, updated_at)",
            "CREATE INDEX conversations_visitor ON conversations(visitor_id, updated_at)",
            "CREATE INDEX conversations_agent ON conversations(agent_id, state)",
            """
            CREATE TABLE events (
                conversation_id TEXT NOT NULL REFERENCES conversations(id), seq BIGINT NOT NULL, type TEXT NOT NULL,
                author_role TEXT NOT NULL, author_id TEXT, client_message_id TEXT, body TEXT NOT NULL, created_at BIGINT NOT NULL,
                PRIMARY KEY (conversation_id, seq))
            """,
            """
            CREATE UNIQUE INDEX events_client_message ON events(conversation_id, client_message_id)
                WHERE client_message_id IS NOT NULL
            """,
            """
            CREATE TABLE read_markers (
                conversation_id TEXT NOT NULL REFERENCES conversations(id), participant_role TEXT NOT NULL,
                participant_id TEXT NOT NULL, read_seq BIGINT NOT NULL,
                PRIMARY KEY (conversation_id, participant_role, participant_id))
            """,
        ]),
        ("0002-desk", [
            """
            CREATE TABLE notes (
                conversation_id TEXT NOT NULL REFERENCES conversations(id), seq BIGINT NOT NULL, author_id TEXT NOT NULL,
                author_name TEXT, client_note_id TEXT NOT NULL, text TEXT NOT NULL, created_at BIGINT NOT NULL,
                PRIMARY KEY (conversation_id, seq), UNIQUE (conversation_id, client_note_id))
            """,
            """
            CREATE TABLE canned_responses (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id), shortcut TEXT NOT NULL, title TEXT NOT NULL,
                text TEXT NOT NULL, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, UNIQUE (app_id, shortcut))
            """,
        ]),
        // Each node's heartbeat, and how many sockets each agent has open on each node (decision 0006).
        ("0003-nodes", [
            "CREATE TABLE nodes (id TEXT PRIMARY KEY, heartbeat_at BIGINT NOT NULL)",
            """
            CREATE TABLE agent_presence (
                node_id TEXT NOT NULL, agent_id TEXT NOT NULL, connections BIGINT NOT NULL, PRIMARY KEY (node_id, agent_id))
            """,
        ]),
        ("0004-ratings", [
            """
            CREATE TABLE ratings (
                conversation_id TEXT PRIMARY KEY REFERENCES conversations(id), app_id TEXT NOT NULL REFERENCES apps(id),
                queue_id TEXT NOT NULL, agent_id TEXT, score BIGINT NOT NULL CHECK (score BETWEEN 1 AND 5), comment TEXT,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
            """,
            "CREATE INDEX ratings_app ON ratings(app_id)",
        ]),
        // App settings (appearance, business hours, forms) as JSON documents, and how long
        // conversations waited before an agent took them (the estimated wait).
        ("0005-settings", [
            """
            CREATE TABLE app_settings (
                app_id TEXT NOT NULL REFERENCES apps(id), key TEXT NOT NULL, value TEXT NOT NULL, updated_at BIGINT NOT NULL,
                PRIMARY KEY (app_id, key))
            """,
            "CREATE TABLE wait_samples (queue_id TEXT NOT NULL, queued_at BIGINT NOT NULL, assigned_at BIGINT NOT NULL)",
            "CREATE INDEX wait_samples_queue ON wait_samples(queue_id, assigned_at)",
        ]),
        // Form answers kept with their conversation: pre-chat or unavailable, and post-chat.
        ("0006-forms", [
            """
            CREATE TABLE form_answers (
                conversation_id TEXT NOT NULL REFERENCES conversations(id), kind TEXT NOT NULL, answers TEXT NOT NULL,
                submitted_at BIGINT NOT NULL, PRIMARY KEY (conversation_id, kind))
            """,
        ]),
        // Transcript emails: an outbox that survives restarts, retried with backoff.
        ("0007-mail", [
            """
            CREATE TABLE mail_outbox (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id), conversation_id TEXT NOT NULL REFERENCES conversations(id),
                recipient TEXT NOT NULL, subject TEXT NOT NULL, text_body TEXT NOT NULL, html_body TEXT NOT NULL, status TEXT NOT NULL,
                attempts BIGINT NOT NULL, next_attempt_at BIGINT NOT NULL, last_error TEXT, created_at BIGINT NOT NULL, sent_at BIGINT)
            """,
            "CREATE INDEX mail_outbox_due ON mail_outbox(status, next_attempt_at)",
            "CREATE INDEX mail_outbox_conversation ON mail_outbox(conversation_id, created_at)",
        ]),
        // The outbox of commits' side effects (push, webhooks), written in the commit's transaction.
        ("0008-outbox", [
            """
            CREATE TABLE outbox (
                id TEXT PRIMARY KEY, kind TEXT NOT NULL, app_id TEXT NOT NULL REFERENCES apps(id),
                conversation_id TEXT NOT NULL REFERENCES conversations(id), seq BIGINT NOT NULL, payload TEXT NOT NULL,
                due_at BIGINT NOT NULL, attempts BIGINT NOT NULL, last_error TEXT, created_at BIGINT NOT NULL, done_at BIGINT)
            """,
            "CREATE INDEX outbox_due ON outbox(kind, done_at, due_at)",
        ]),
        // A message changes its conversation's `updated_at`; with that column in no index, the
        // update is heap-only (HOT) and touches no index page (decision 0008).
        ("0009-lean-conversation-indexes", [
            "DROP INDEX conversations_app_state",
            "CREATE INDEX conversations_app_state ON conversations(app_id, state)",
            "DROP INDEX conversations_visitor",
            "CREATE INDEX conversations_visitor ON conversations(visitor_id)",
        ]),
        // Verified identity (issue 13): a visitor may be an app's user, on every device.
        ("0010-verified-visitors", [
            "ALTER TABLE visitors ADD COLUMN user_id TEXT",
            "ALTER TABLE visitors ADD COLUMN verified_fields TEXT",
            "CREATE UNIQUE INDEX visitors_user ON visitors(app_id, user_id) WHERE user_id IS NOT NULL",
        ]),
        // Visitor sign-out (issue 13): a signed-out token is refused until it would have expired.
        ("0011-revoked-visitor-tokens", [
            "CREATE TABLE revoked_visitor_tokens (token_hash TEXT PRIMARY KEY, expires_at BIGINT NOT NULL)",
            "CREATE INDEX revoked_visitor_tokens_expiry ON revoked_visitor_tokens(expires_at)",
        ]),
        // Attachments (issue 14): a row per file sent, written with its message; the bytes in
        // chunks, so that every node serves every file with no second service.
        ("0012-attachments", [
            """
            CREATE TABLE attachments (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL, conversation_id TEXT NOT NULL REFERENCES conversations(id),
                seq BIGINT NOT NULL, name TEXT NOT NULL, content_type TEXT NOT NULL, size BIGINT NOT NULL, sha256 TEXT NOT NULL,
                created_at BIGINT NOT NULL, deleted_at BIGINT)
            """,
            "CREATE INDEX attachments_conversation ON attachments(conversation_id)",
            "CREATE INDEX attachments_app_created ON attachments(app_id, created_at) WHERE deleted_at IS NULL",
            "CREATE INDEX attachments_sha256 ON attachments(sha256)",
            "CREATE TABLE blobs (sha256 TEXT PRIMARY KEY, size BIGINT NOT NULL, stored_at BIGINT NOT NULL)",
            "CREATE TABLE blob_chunks (sha256 TEXT NOT NULL, chunk INTEGER NOT NULL, data BYTEA NOT NULL, PRIMARY KEY (sha256, chunk))",
        ]),
        // Webhooks (issue 16): apps' endpoints, secrets sealed; the outbox learns destinations
        // (`target`), ordering (`position`), holding, the bytes sent and every attempt (decision 0016).
        ("0013-webhooks", [
            """
            CREATE TABLE webhook_endpoints (
                id TEXT PRIMARY KEY, app_id TEXT NOT NULL REFERENCES apps(id), url TEXT NOT NULL, description TEXT,
                events TEXT NOT NULL, enabled BOOLEAN NOT NULL, disabled_reason TEXT, secret TEXT NOT NULL, previous_secret TEXT,
                previous_secret_expires_at BIGINT, created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL)
            """,
            "CREATE INDEX webhook_endpoints_app ON webhook_endpoints(app_id)",
            "ALTER TABLE outbox ADD COLUMN target TEXT NOT NULL DEFAULT ''",
            "ALTER TABLE outbox ADD COLUMN message_id TEXT",
            "ALTER TABLE outbox ADD COLUMN status TEXT NOT NULL DEFAULT 'pending'",
            "ALTER TABLE outbox ADD COLUMN held BOOLEAN NOT NULL DEFAULT false",
            "ALTER TABLE outbox ADD COLUMN body TEXT",
            "ALTER TABLE outbox ADD COLUMN position BIGSERIAL",
            "CREATE INDEX outbox_order ON outbox(conversation_id, target, seq) WHERE done_at IS NULL",
            "CREATE INDEX outbox_target ON outbox(kind, target, created_at)",
            """
            CREATE TABLE outbox_attempts (
                outbox_id TEXT NOT NULL REFERENCES outbox(id), number BIGINT NOT NULL, at BIGINT NOT NULL, status BIGINT,
                response TEXT, error TEXT, duration_ms BIGINT NOT NULL, PRIMARY KEY (outbox_id, number))
            """,
        ]),
        // Push devices (issue 16): one row per device of an app, its token one device's only.
        ("0014-push-devices", [
            """
            CREATE TABLE push_devices (
                app_id TEXT NOT NULL, device_id TEXT NOT NULL, visitor_id TEXT NOT NULL REFERENCES visitors(id),
                provider TEXT NOT NULL, token TEXT NOT NULL, request TEXT NOT NULL,
                created_at BIGINT NOT NULL, updated_at BIGINT NOT NULL, PRIMARY KEY (app_id, device_id))
            """,
            "CREATE UNIQUE INDEX push_devices_token ON push_devices(app_id, provider, token)",
            "CREATE INDEX push_devices_visitor ON push_devices(app_id, visitor_id)",
        ]),
        // Push delivery (issue 16): an app's provider keys, sealed; the admins' list of its pushes.
        ("0015-push-settings", [
            """
            CREATE TABLE push_settings (
                app_id TEXT PRIMARY KEY REFERENCES apps(id), settings TEXT NOT NULL, apns_key TEXT, fcm_account TEXT,
                updated_at BIGINT NOT NULL)
            """,
            "CREATE INDEX outbox_app ON outbox(kind, app_id, created_at)",
        ]),
        // Callback requests (issue 17): a conversation may be one; the request as JSON beside it.
        ("0016-callbacks", ["ALTER TABLE conversations ADD COLUMN callback TEXT"]),
        // Desk search (issue 18): message words as SearchText folds them, as a tsvector built by
        // the store (never PostgreSQL's parser), with a GIN index; backfilled below.
        ("0017-search", [
            """
            CREATE TABLE message_search (
                position BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                conversation_id TEXT NOT NULL, seq BIGINT NOT NULL, words TSVECTOR NOT NULL)
            """,
            "CREATE INDEX message_search_words ON message_search USING GIN (words)",
        ]),
        // Triage (issue 18): agents' tags, priority and snooze, beside the conversation, never in it.
        ("0018-triage", [
            """
            CREATE TABLE conversation_triage (
                conversation_id TEXT PRIMARY KEY REFERENCES conversations(id), app_id TEXT NOT NULL REFERENCES apps(id),
                tags TEXT NOT NULL DEFAULT '[]', priority TEXT NOT NULL DEFAULT 'normal', snoozed_until BIGINT,
                updated_by TEXT, updated_at BIGINT NOT NULL)
            """,
        ]),
        // Reports (issue 18) read an app's conversations by when they started. Search walks one
        // app's newest messages, never another app's: each indexed message names its app.
        ("0019-reports", [
            "CREATE INDEX conversations_app_created ON conversations(app_id, created_at)",
            "ALTER TABLE message_search ADD COLUMN app_id TEXT",
            "UPDATE message_search s SET app_id = c.app_id FROM conversations c WHERE c.id = s.conversation_id",
            "ALTER TABLE message_search ALTER COLUMN app_id SET NOT NULL",
            "CREATE INDEX message_search_app ON message_search(app_id, position)",
        ]),
        // Personal canned responses (issue 18): a response may belong to one agent; shortcuts are
        // unique per set (the team's, or each agent's own).
        ("0020-personal-canned-responses", [
            "ALTER TABLE canned_responses DROP CONSTRAINT canned_responses_app_id_shortcut_key",
            "ALTER TABLE canned_responses ADD COLUMN owner_id TEXT REFERENCES agents(id)",
            "CREATE UNIQUE INDEX canned_responses_shortcut ON canned_responses(app_id, coalesce(owner_id, ''), shortcut)",
        ]),
    ]

    /// Work a migration does beyond its SQL, in the same transaction: indexing what is stored.
    static let backfills: [String: @Sendable (PostgresConnection, Logger) async throws -> Void] = [
        "0017-search": PostgresSearchIndex.backfill,
    ]

    /// An arbitrary constant: the advisory lock every node takes while migrating.
    static let lockKey: Int64 = 0x7061_726c_6579  // "parley"

    /// Applies the migrations the database lacks, in order. Returns the names applied now.
    @discardableResult
    static func migrate(_ connection: PostgresConnection, logger: Logger) async throws -> [String] {
        try await connection.query(
            "CREATE TABLE IF NOT EXISTS schema_migrations (name TEXT PRIMARY KEY, applied_at BIGINT NOT NULL)", logger: logger)
        var applied: [String] = []
        for migration in all {
            try await connection.query("BEGIN", logger: logger)
            do {
                try await connection.query("SELECT pg_advisory_xact_lock(\(lockKey))", logger: logger)
                let done = try await connection.query("SELECT 1 FROM schema_migrations WHERE name = \(migration.name)", logger: logger)
                    .collect()
                if done.isEmpty {
                    for statement in migration.sql { try await connection.query(PostgresQuery(unsafeSQL: statement), logger: logger) }
                    try await backfills[migration.name]?(connection, logger)
                    let now = Int64(Date().timeIntervalSince1970 * 1000)
                    try await connection.query("INSERT INTO schema_migrations (name, applied_at) VALUES (\(migration.name), \(now))", logger: logger)
                    applied.append(migration.name)
                }
                try await connection.query("COMMIT", logger: logger)
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
        return applied
    }
}
