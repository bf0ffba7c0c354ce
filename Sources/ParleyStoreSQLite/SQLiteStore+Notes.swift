import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func addNote(_ note: NewNote) async throws -> NoteCommit {
        // Through the group committer: a note the desk was told is saved has been fsync'd.
        try await committer.write { db in
            guard try Bool.fetchOne(db.cachedStatement(sql: "SELECT 1 FROM conversations WHERE id = ? AND app_id = ?"),
                                    arguments: [note.conversationID.rawValue, note.appID.rawValue]) == true
            else { throw StoreError.notFound("conversation not found") }
            if let row = try Row.fetchOne(db, sql: "SELECT * FROM notes WHERE conversation_id = ? AND client_note_id = ?",
                                          arguments: [note.conversationID.rawValue, note.clientNoteID]) {
                let stored = Self.note(row)
                guard stored.author.id == note.author.id, stored.text == note.text else {
                    throw StoreError.idempotencyConflict("client_note_id \(note.clientNoteID) was used for another note")
                }
                return NoteCommit(note: stored, isDuplicate: true)
            }
            let seq = try Int64.fetchOne(db, sql: "SELECT COALESCE(MAX(seq), 0) + 1 FROM notes WHERE conversation_id = ?",
                                         arguments: [note.conversationID.rawValue]) ?? 1
            let stored = InternalNote(conversationID: note.conversationID, seq: seq, author: note.author, clientNoteID: note.clientNoteID,
                                      text: note.text, createdAt: Timestamp.date(millis: Timestamp.millis(note.at)))
            try db.execute(
                sql: """
                    INSERT INTO notes (conversation_id, seq, author_id, author_name, client_note_id, text, created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [stored.conversationID.rawValue, seq, note.author.id ?? "", note.author.name, stored.clientNoteID, stored.text,
                            Timestamp.millis(stored.createdAt)])
            return NoteCommit(note: stored, isDuplicate: false)
        }
    }

    public func notes(_ id: ConversationID, app: AppID, afterSeq: Int64, limit: Int) async throws -> [InternalNote] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT notes.* FROM notes JOIN conversations ON conversations.id = notes.conversation_id
                    WHERE notes.conversation_id = ? AND conversations.app_id = ? AND notes.seq > ?
                    ORDER BY notes.seq LIMIT ?
                    """,
                arguments: [id.rawValue, app.rawValue, afterSeq, limit]
            ).map(Self.note)
        }
    }

    private static func note(_ row: Row) -> InternalNote {
        InternalNote(
            conversationID: ConversationID(rawValue: row["conversation_id"]), seq: row["seq"],
            author: .agent(AgentID(rawValue: row["author_id"]), name: row["author_name"]),
            clientNoteID: row["client_note_id"], text: row["text"], createdAt: SQLiteRows.date(row, "created_at"))
    }
}
