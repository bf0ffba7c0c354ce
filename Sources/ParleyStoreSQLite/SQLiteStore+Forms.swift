import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func submitForm(
        _ submission: FormSubmission, conversation id: ConversationID, app: AppID, visitor: VisitorID, effects: any CommitEffects
    ) async throws {
        try await committer.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM conversations WHERE id = ? AND app_id = ?", arguments: [id.rawValue, app.rawValue])
            else { throw StoreError.notFound("conversation not found") }
            let conversation = SQLiteRows.conversation(row)
            try FormRules.checkPostChat(conversation, visitor: visitor)
            try Self.insertFormAnswers(submission, conversation: id, in: db)
            for entry in effects.entries(for: submission, conversation: conversation) { try Self.enqueue(entry, in: db) }
        }
    }

    public func formSubmissions(_ id: ConversationID, app: AppID) async throws -> [FormSubmission] {
        try await pool.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT f.* FROM form_answers f JOIN conversations c ON c.id = f.conversation_id
                    WHERE f.conversation_id = ? AND c.app_id = ? ORDER BY f.submitted_at, f.kind
                    """,
                arguments: [id.rawValue, app.rawValue]
            ).compactMap { row in
                try FormRules.decode(kind: row["kind"], answers: row["answers"], submittedAt: Timestamp.date(millis: row["submitted_at"]))
            }
        }
    }

    static func insertFormAnswers(_ submission: FormSubmission, conversation: ConversationID, in db: Database) throws {
        try db.execute(
            sql: """
                INSERT INTO form_answers (conversation_id, kind, answers, submitted_at) VALUES (?, ?, ?, ?)
                ON CONFLICT (conversation_id, kind) DO UPDATE SET answers = excluded.answers, submitted_at = excluded.submitted_at
                """,
            arguments: [conversation.rawValue, submission.kind.rawValue, try FormRules.encode(submission.answers),
                        Timestamp.millis(submission.submittedAt)])
    }
}
