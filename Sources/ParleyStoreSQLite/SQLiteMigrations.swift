import GRDB

/// The SQLite schema, as named, append-only migrations. Never edit a migration that has shipped:
/// add a new one. The schema is the contract every store implements (see docs/decisions/0001).
enum SQLiteMigrations {
    static func makeMigrator() -> DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("0001-core") { db in
            try db.execute(sql: """
                CREATE TABLE meta (
                    key TEXT PRIMARY KEY NOT NULL,
                    value TEXT NOT NULL
                );
                CREATE TABLE apps (
                    id TEXT PRIMARY KEY NOT NULL,
                    name TEXT NOT NULL,
                    secret_key TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE TABLE queues (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    name TEXT NOT NULL,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX queues_app ON queues(app_id, created_at);
                CREATE TABLE agents (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    name TEXT NOT NULL,
                    email TEXT NOT NULL COLLATE NOCASE UNIQUE,
                    password_hash TEXT NOT NULL,
                    role TEXT NOT NULL CHECK (role IN ('agent', 'admin')),
                    capacity INTEGER NOT NULL CHECK (capacity >= 0),
                    availability TEXT NOT NULL CHECK (availability IN ('online', 'away', 'offline')),
                    disabled INTEGER NOT NULL DEFAULT 0,
                    created_at INTEGER NOT NULL
                );
                CREATE INDEX agents_app ON agents(app_id, created_at);
                CREATE TABLE agent_queues (
                    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
                    queue_id TEXT NOT NULL REFERENCES queues(id) ON DELETE CASCADE,
                    position INTEGER NOT NULL,
                    PRIMARY KEY (agent_id, queue_id)
                ) WITHOUT ROWID;
                CREATE TABLE agent_sessions (
                    token_hash TEXT PRIMARY KEY NOT NULL,
                    agent_id TEXT NOT NULL REFERENCES agents(id) ON DELETE CASCADE,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    created_at INTEGER NOT NULL,
                    expires_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX agent_sessions_agent ON agent_sessions(agent_id);
                CREATE TABLE visitors (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    device_id TEXT NOT NULL,
                    name TEXT,
                    email TEXT,
                    attributes TEXT NOT NULL DEFAULT '{}',
                    created_at INTEGER NOT NULL,
                    UNIQUE (app_id, device_id)
                );
                CREATE TABLE conversations (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    queue_id TEXT NOT NULL REFERENCES queues(id),
                    visitor_id TEXT NOT NULL REFERENCES visitors(id),
                    subject TEXT,
                    attributes TEXT NOT NULL DEFAULT '{}',
                    state TEXT NOT NULL CHECK (state IN ('queued', 'assigned', 'ended')),
                    agent_id TEXT REFERENCES agents(id),
                    last_seq INTEGER NOT NULL,
                    queue_rank INTEGER,
                    queued_at INTEGER,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE INDEX conversations_app_state ON conversations(app_id, state, updated_at);
                CREATE INDEX conversations_visitor ON conversations(visitor_id, updated_at);
                CREATE INDEX conversations_agent ON conversations(agent_id, state);
                CREATE TABLE events (
                    conversation_id TEXT NOT NULL REFERENCES conversations(id),
                    seq INTEGER NOT NULL,
                    type TEXT NOT NULL,
                    author_role TEXT NOT NULL,
                    author_id TEXT,
                    client_message_id TEXT,
                    body TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (conversation_id, seq)
                ) WITHOUT ROWID;
                CREATE UNIQUE INDEX events_client_message
                    ON events(conversation_id, client_message_id) WHERE client_message_id IS NOT NULL;
                CREATE TABLE read_markers (
                    conversation_id TEXT NOT NULL REFERENCES conversations(id),
                    participant_role TEXT NOT NULL,
                    participant_id TEXT NOT NULL,
                    read_seq INTEGER NOT NULL,
                    PRIMARY KEY (conversation_id, participant_role, participant_id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("0002-desk") { db in
            try db.execute(sql: """
                CREATE TABLE notes (
                    conversation_id TEXT NOT NULL REFERENCES conversations(id),
                    seq INTEGER NOT NULL,
                    author_id TEXT NOT NULL,
                    author_name TEXT,
                    client_note_id TEXT NOT NULL,
                    text TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    PRIMARY KEY (conversation_id, seq),
                    UNIQUE (conversation_id, client_note_id)
                ) WITHOUT ROWID;
                CREATE TABLE canned_responses (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    shortcut TEXT NOT NULL,
                    title TEXT NOT NULL,
                    text TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    UNIQUE (app_id, shortcut)
                );
                """)
        }
        // Several nodes share only a PostgreSQL database; the tables are here too so that both
        // schemas keep the same migrations, and stay empty.
        migrator.registerMigration("0003-nodes") { db in
            try db.execute(sql: """
                CREATE TABLE nodes (id TEXT PRIMARY KEY NOT NULL, heartbeat_at INTEGER NOT NULL);
                CREATE TABLE agent_presence (
                    node_id TEXT NOT NULL,
                    agent_id TEXT NOT NULL,
                    connections INTEGER NOT NULL,
                    PRIMARY KEY (node_id, agent_id)
                ) WITHOUT ROWID;
                """)
        }
        migrator.registerMigration("0004-ratings") { db in
            try db.execute(sql: """
                CREATE TABLE ratings (
                    conversation_id TEXT PRIMARY KEY NOT NULL REFERENCES conversations(id),
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    queue_id TEXT NOT NULL,
                    agent_id TEXT,
                    score INTEGER NOT NULL CHECK (score BETWEEN 1 AND 5),
                    comment TEXT,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                CREATE INDEX ratings_app ON ratings(app_id);
                """)
        }
        // App settings (appearance, business hours, forms) as JSON documents, and how long
        // conversations waited before an agent took them (the estimated wait).
        migrator.registerMigration("0005-settings") { db in
            try db.execute(sql: """
                CREATE TABLE app_settings (
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    key TEXT NOT NULL,
                    value TEXT NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, key)
                ) WITHOUT ROWID;
                CREATE TABLE wait_samples (
                    queue_id TEXT NOT NULL,
                    queued_at INTEGER NOT NULL,
                    assigned_at INTEGER NOT NULL
                );
                CREATE INDEX wait_samples_queue ON wait_samples(queue_id, assigned_at);
                """)
        }
        // Form answers kept with their conversation: pre-chat or unavailable, and post-chat.
        migrator.registerMigration("0006-forms") { db in
            try db.execute(sql: """
                CREATE TABLE form_answers (
                    conversation_id TEXT NOT NULL REFERENCES conversations(id),
                    kind TEXT NOT NULL,
                    answers TEXT NOT NULL,
                    submitted_at INTEGER NOT NULL,
                    PRIMARY KEY (conversation_id, kind)
                ) WITHOUT ROWID;
                """)
        }
        // Transcript emails: an outbox that survives restarts, retried with backoff.
        migrator.registerMigration("0007-mail") { db in
            try db.execute(sql: """
                CREATE TABLE mail_outbox (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    conversation_id TEXT NOT NULL REFERENCES conversations(id),
                    recipient TEXT NOT NULL,
                    subject TEXT NOT NULL,
                    text_body TEXT NOT NULL,
                    html_body TEXT NOT NULL,
                    status TEXT NOT NULL,
                    attempts INTEGER NOT NULL,
                    next_attempt_at INTEGER NOT NULL,
                    last_error TEXT,
                    created_at INTEGER NOT NULL,
                    sent_at INTEGER
                );
                CREATE INDEX mail_outbox_due ON mail_outbox(status, next_attempt_at);
                CREATE INDEX mail_outbox_conversation ON mail_outbox(conversation_id, created_at);
                """)
        }
        // The outbox of commits' side effects (push, webhooks), written in the commit's transaction.
        migrator.registerMigration("0008-outbox") { db in
            try db.execute(sql: """
                CREATE TABLE outbox (
                    id TEXT PRIMARY KEY NOT NULL,
                    kind TEXT NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    conversation_id TEXT NOT NULL REFERENCES conversations(id),
                    seq INTEGER NOT NULL,
                    payload TEXT NOT NULL,
                    due_at INTEGER NOT NULL,
                    attempts INTEGER NOT NULL,
                    last_error TEXT,
                    created_at INTEGER NOT NULL,
                    done_at INTEGER
                );
                CREATE INDEX outbox_due ON outbox(kind, done_at, due_at);
                """)
        }
        // A message changes its conversation's `updated_at`; indexes holding that column made every
        // message rewrite two more index pages. Lists by state or by visitor are small and sort
        // what they find (decision 0008).
        migrator.registerMigration("0009-lean-conversation-indexes") { db in
            try db.execute(sql: """
                DROP INDEX conversations_app_state;
                CREATE INDEX conversations_app_state ON conversations(app_id, state);
                DROP INDEX conversations_visitor;
                CREATE INDEX conversations_visitor ON conversations(visitor_id);
                """)
        }
        // Verified identity (issue 13): a visitor may be an app's user, on every device.
        migrator.registerMigration("0010-verified-visitors") { db in
            try db.execute(sql: """
                ALTER TABLE visitors ADD COLUMN user_id TEXT;
                ALTER TABLE visitors ADD COLUMN verified_fields TEXT;
                CREATE UNIQUE INDEX visitors_user ON visitors(app_id, user_id) WHERE user_id IS NOT NULL;
                """)
        }
        // Visitor sign-out (issue 13): a signed-out token is refused until it would have expired.
        migrator.registerMigration("0011-revoked-visitor-tokens") { db in
            try db.execute(sql: """
                CREATE TABLE revoked_visitor_tokens (token_hash TEXT PRIMARY KEY NOT NULL, expires_at INTEGER NOT NULL);
                CREATE INDEX revoked_visitor_tokens_expiry ON revoked_visitor_tokens(expires_at);
                """)
        }
        // Attachments (issue 14): a row per file sent, written with its message; the bytes are
        // files beside the database (FileBlobStore), named by their SHA-256.
        migrator.registerMigration("0012-attachments") { db in
            try db.execute(sql: """
                CREATE TABLE attachments (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL,
                    conversation_id TEXT NOT NULL REFERENCES conversations(id),
                    seq INTEGER NOT NULL,
                    name TEXT NOT NULL,
                    content_type TEXT NOT NULL,
                    size INTEGER NOT NULL,
                    sha256 TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    deleted_at INTEGER
                );
                CREATE INDEX attachments_conversation ON attachments(conversation_id);
                CREATE INDEX attachments_app_created ON attachments(app_id, created_at) WHERE deleted_at IS NULL;
                CREATE INDEX attachments_sha256 ON attachments(sha256);
                """)
        }
        // Webhooks (issue 16): apps' endpoints, secrets sealed; the outbox learns destinations
        // (`target`), ordering, holding, the bytes sent and every attempt (decision 0016).
        migrator.registerMigration("0013-webhooks") { db in
            try db.execute(sql: """
                CREATE TABLE webhook_endpoints (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    url TEXT NOT NULL,
                    description TEXT,
                    events TEXT NOT NULL,
                    enabled INTEGER NOT NULL,
                    disabled_reason TEXT,
                    secret TEXT NOT NULL,
                    previous_secret TEXT,
                    previous_secret_expires_at INTEGER,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                CREATE INDEX webhook_endpoints_app ON webhook_endpoints(app_id);
                ALTER TABLE outbox ADD COLUMN target TEXT NOT NULL DEFAULT '';
                ALTER TABLE outbox ADD COLUMN message_id TEXT;
                ALTER TABLE outbox ADD COLUMN status TEXT NOT NULL DEFAULT 'pending';
                ALTER TABLE outbox ADD COLUMN held INTEGER NOT NULL DEFAULT 0;
                ALTER TABLE outbox ADD COLUMN body TEXT;
                CREATE INDEX outbox_order ON outbox(conversation_id, target, seq) WHERE done_at IS NULL;
                CREATE INDEX outbox_target ON outbox(kind, target, created_at);
                CREATE TABLE outbox_attempts (
                    outbox_id TEXT NOT NULL REFERENCES outbox(id),
                    number INTEGER NOT NULL,
                    at INTEGER NOT NULL,
                    status INTEGER,
                    response TEXT,
                    error TEXT,
                    duration_ms INTEGER NOT NULL,
                    PRIMARY KEY (outbox_id, number)
                ) WITHOUT ROWID;
                """)
        }
        // Push devices (issue 16): one row per device of an app, its token one device's only.
        migrator.registerMigration("0014-push-devices") { db in
            try db.execute(sql: """
                CREATE TABLE push_devices (
                    app_id TEXT NOT NULL,
                    device_id TEXT NOT NULL,
                    visitor_id TEXT NOT NULL REFERENCES visitors(id),
                    provider TEXT NOT NULL,
                    token TEXT NOT NULL,
                    request TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL,
                    PRIMARY KEY (app_id, device_id)
                );
                CREATE UNIQUE INDEX push_devices_token ON push_devices(app_id, provider, token);
                CREATE INDEX push_devices_visitor ON push_devices(app_id, visitor_id);
                """)
        }
        // Push delivery (issue 16): an app's provider keys, sealed; the admins' list of its pushes.
        migrator.registerMigration("0015-push-settings") { db in
            try db.execute(sql: """
                CREATE TABLE push_settings (
                    app_id TEXT PRIMARY KEY REFERENCES apps(id),
                    settings TEXT NOT NULL,
                    apns_key TEXT,
                    fcm_account TEXT,
                    updated_at INTEGER NOT NULL
                );
                CREATE INDEX outbox_app ON outbox(kind, app_id, created_at);
                """)
        }
        // Callback requests (issue 17): a conversation may be one; the request as JSON beside it.
        migrator.registerMigration("0016-callbacks") { db in
            try db.execute(sql: "ALTER TABLE conversations ADD COLUMN callback TEXT")
        }
        // Desk search (issue 18): message words as SearchText folds them, in FTS5 with prefix
        // indexes for two- and three-letter prefixes; the messages already stored are indexed here.
        migrator.registerMigration("0017-search") { db in
            try db.execute(sql: """
                CREATE VIRTUAL TABLE message_search USING fts5(
                    words, conversation_id UNINDEXED, seq UNINDEXED,
                    tokenize = 'unicode61 remove_diacritics 0', prefix = '2 3');
                """)
            let rows = try Row.fetchCursor(db, sql: "SELECT body FROM events WHERE type = 'message' ORDER BY created_at, conversation_id, seq")
            while let row = try rows.next() {
                try SQLiteSearchIndex.insert(try SQLiteRows.event(row), in: db)
            }
        }
        // Triage (issue 18): agents' tags, priority and snooze, beside the conversation, never in it.
        migrator.registerMigration("0018-triage") { db in
            try db.execute(sql: """
                CREATE TABLE conversation_triage (
                    conversation_id TEXT PRIMARY KEY NOT NULL REFERENCES conversations(id),
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    tags TEXT NOT NULL DEFAULT '[]',
                    priority TEXT NOT NULL DEFAULT 'normal',
                    snoozed_until INTEGER,
                    updated_by TEXT,
                    updated_at INTEGER NOT NULL
                ) WITHOUT ROWID;
                """)
        }
        // Reports (issue 18) read an app's conversations by when they started.
        migrator.registerMigration("0019-reports") { db in
            try db.execute(sql: "CREATE INDEX conversations_app_created ON conversations(app_id, created_at)")
        }
        // Personal canned responses (issue 18): a response may belong to one agent; shortcuts are
        // unique per set. SQLite cannot drop the old UNIQUE (app_id, shortcut), so the table is rebuilt.
        migrator.registerMigration("0020-personal-canned-responses") { db in
            try db.execute(sql: """
                CREATE TABLE canned_responses_new (
                    id TEXT PRIMARY KEY NOT NULL,
                    app_id TEXT NOT NULL REFERENCES apps(id),
                    owner_id TEXT REFERENCES agents(id),
                    shortcut TEXT NOT NULL,
                    title TEXT NOT NULL,
                    text TEXT NOT NULL,
                    created_at INTEGER NOT NULL,
                    updated_at INTEGER NOT NULL
                );
                INSERT INTO canned_responses_new (id, app_id, owner_id, shortcut, title, text, created_at, updated_at)
                    SELECT id, app_id, NULL, shortcut, title, text, created_at, updated_at FROM canned_responses;
                DROP TABLE canned_responses;
                ALTER TABLE canned_responses_new RENAME TO canned_responses;
                CREATE UNIQUE INDEX canned_responses_shortcut ON canned_responses(app_id, coalesce(owner_id, ''), shortcut);
                """)
        }
        return migrator
    }
}
