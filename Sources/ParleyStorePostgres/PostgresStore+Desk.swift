import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

// Internal notes and canned responses: the desk's tables.
extension PostgresStore {
    public func addNote(_ note: NewNote) async throws -> NoteCommit {
        let commit = try await transaction { connection in
            // Locking the conversation numbers concurrent notes one after another, from any node.
            guard try await exists(
                "SELECT 1 FROM conversations WHERE id = \(note.conversationID.rawValue) AND app_id = \(note.appID.rawValue) FOR UPDATE",
                on: connection)
            else { throw StoreError.notFound("conversation not found") }
            if let row = try await rows(
                "SELECT * FROM notes WHERE conversation_id = \(note.conversationID.rawValue) AND client_note_id = \(note.clientNoteID)",
                on: connection).first {
                let stored = try PostgresRows.note(row)
                guard stored.author.id == note.author.id, stored.text == note.text else {
                    throw StoreError.idempotencyConflict("client_note_id \(note.clientNoteID) was used for another note")
                }
                return NoteCommit(note: stored, isDuplicate: true)
            }
            let seq = try await rows(
                "SELECT COALESCE(MAX(seq), 0) + 1 AS next FROM notes WHERE conversation_id = \(note.conversationID.rawValue)", on: connection)
                .first.map { try PostgresRows.int($0, "next") } ?? 1
            let stored = InternalNote(conversationID: note.conversationID, seq: seq, author: note.author, clientNoteID: note.clientNoteID,
                                      text: note.text, createdAt: Timestamp.date(millis: Timestamp.millis(note.at)))
            try await connection.query(
                """
                INSERT INTO notes (conversation_id, seq, author_id, author_name, client_note_id, text, created_at)
                VALUES (\(stored.conversationID.rawValue), \(seq), \(note.author.id ?? ""), \(note.author.name), \(stored.clientNoteID),
                    \(stored.text), \(Timestamp.millis(stored.createdAt)))
                """, logger: logger)
            return NoteCommit(note: stored, isDuplicate: false)
        }
        // After the commit, batched like a commit's notice.
        if !commit.isDuplicate {
            notices.add(NodeNoticeWire.noteAdded(node: nodeID, app: note.appID, conversation: note.conversationID, seq: commit.note.seq))
        }
        return commit
    }

    public func notes(_ id: ConversationID, app: AppID, afterSeq: Int64, limit: Int) async throws -> [InternalNote] {
        try await rows(
            """
            SELECT n.* FROM notes n JOIN conversations c ON c.id = n.conversation_id
            WHERE n.conversation_id = \(id.rawValue) AND c.app_id = \(app.rawValue) AND n.seq > \(afterSeq) ORDER BY n.seq LIMIT \(Int64(limit))
            """).map(PostgresRows.note)
    }

    public func insertCannedResponse(_ response: CannedResponse) async throws {
        do {
            try await execute(
                """
                INSERT INTO canned_responses (id, app_id, owner_id, shortcut, title, text, created_at, updated_at)
                VALUES (\(response.id.rawValue), \(response.appID.rawValue), \(response.ownerID?.rawValue), \(response.shortcut), \(response.title),
                    \(response.text), \(Timestamp.millis(response.createdAt)), \(Timestamp.millis(response.updatedAt)))
                """)
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.duplicate(Self.shortcutTaken(response))
        }
    }

    public func cannedResponses(app: AppID, owner: AgentID?) async throws -> [CannedResponse] {
        try await rows("""
            SELECT * FROM canned_responses WHERE app_id = \(app.rawValue) AND owner_id IS NOT DISTINCT FROM \(owner?.rawValue) ORDER BY shortcut
            """).map(PostgresRows.cannedResponse)
    }

    public func cannedResponse(_ id: CannedResponseID, app: AppID, owner: AgentID?) async throws -> CannedResponse? {
        try await rows("""
            SELECT * FROM canned_responses WHERE id = \(id.rawValue) AND app_id = \(app.rawValue) AND owner_id IS NOT DISTINCT FROM \(owner?.rawValue)
            """).first.map(PostgresRows.cannedResponse)
    }

    public func updateCannedResponse(_ response: CannedResponse) async throws {
        do {
            let updated = try await rows(
                """
                UPDATE canned_responses SET shortcut = \(response.shortcut), title = \(response.title), text = \(response.text),
                    updated_at = \(Timestamp.millis(response.updatedAt))
                WHERE id = \(response.id.rawValue) AND app_id = \(response.appID.rawValue)
                    AND owner_id IS NOT DISTINCT FROM \(response.ownerID?.rawValue) RETURNING id
                """)
            if updated.isEmpty { throw StoreError.notFound("canned response not found") }
        } catch let error as PSQLError where error.isUniqueViolation {
            throw StoreError.duplicate(Self.shortcutTaken(response))
        }
    }

    public func deleteCannedResponse(_ id: CannedResponseID, app: AppID, owner: AgentID?) async throws -> Bool {
        try await !rows("""
            DELETE FROM canned_responses WHERE id = \(id.rawValue) AND app_id = \(app.rawValue)
                AND owner_id IS NOT DISTINCT FROM \(owner?.rawValue) RETURNING id
            """).isEmpty
    }

    private static func shortcutTaken(_ response: CannedResponse) -> String {
        "\(response.ownerID == nil ? "the app" : "your own set") has a canned response with the shortcut \(response.shortcut)"
    }
}
