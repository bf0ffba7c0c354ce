import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func submitForm(
        _ submission: FormSubmission, conversation id: ConversationID, app: AppID, visitor: VisitorID, effects: any CommitEffects
    ) async throws {
        try await transaction { connection in
            guard let row = try await rows("SELECT * FROM conversations WHERE id = \(id.rawValue) AND app_id = \(app.rawValue) FOR UPDATE",
                                           on: connection).first
            else { throw StoreError.notFound("conversation not found") }
            let conversation = try PostgresRows.conversation(row)
            try FormRules.checkPostChat(conversation, visitor: visitor)
            try await insertFormAnswers(submission, conversation: id, on: connection)
            for entry in effects.entries(for: submission, conversation: conversation) { try await enqueue(entry, on: connection) }
        }
    }

    public func formSubmissions(_ id: ConversationID, app: AppID) async throws -> [FormSubmission] {
        try await rows(
            """
            SELECT f.* FROM form_answers f JOIN conversations c ON c.id = f.conversation_id
            WHERE f.conversation_id = \(id.rawValue) AND c.app_id = \(app.rawValue) ORDER BY f.submitted_at, f.kind
            """
        ).compactMap { row in
            try FormRules.decode(kind: try PostgresRows.string(row, "kind"), answers: try PostgresRows.string(row, "answers"),
                                 submittedAt: try PostgresRows.date(row, "submitted_at"))
        }
    }

    func insertFormAnswers(_ submission: FormSubmission, conversation: ConversationID, on connection: PostgresConnection) async throws {
        try await connection.query(
            """
            INSERT INTO form_answers (conversation_id, kind, answers, submitted_at)
            VALUES (\(conversation.rawValue), \(submission.kind.rawValue), \(try FormRules.encode(submission.answers)), \(Timestamp.millis(submission.submittedAt)))
            ON CONFLICT (conversation_id, kind) DO UPDATE SET answers = excluded.answers, submitted_at = excluded.submitted_at
            """, logger: logger)
    }
}
