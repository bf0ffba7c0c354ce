import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func enqueueMail(_ mail: OutgoingMail) async throws {
        try await transaction { connection in
            guard try await exists(
                "SELECT 1 FROM conversations WHERE id = \(mail.record.conversationID.rawValue) AND app_id = \(mail.appID.rawValue)", on: connection)
            else { throw StoreError.notFound("conversation not found") }
            let r = mail.record
            try await connection.query(
                """
                INSERT INTO mail_outbox (id, app_id, conversation_id, recipient, subject, text_body, html_body, status, attempts,
                    next_attempt_at, last_error, created_at, sent_at)
                VALUES (\(r.id), \(mail.appID.rawValue), \(r.conversationID.rawValue), \(r.recipient), \(mail.subject), \(mail.text), \(mail.html),
                    \(r.status.rawValue), \(Int64(r.attempts)), \(Timestamp.millis(r.createdAt)), \(r.lastError), \(Timestamp.millis(r.createdAt)),
                    \(r.sentAt.map(Timestamp.millis)))
                """, logger: logger)
        }
    }

    /// `SKIP LOCKED`: nodes claiming at once take different emails, and none waits for another.
    public func claimDueMail(now: Date, lease: TimeInterval, limit: Int) async throws -> [OutgoingMail] {
        try await transaction { connection in
            try await rows(
                """
                UPDATE mail_outbox SET next_attempt_at = \(Timestamp.millis(now.addingTimeInterval(lease)))
                WHERE id IN (SELECT id FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= \(Timestamp.millis(now))
                             ORDER BY next_attempt_at LIMIT \(Int64(limit)) FOR UPDATE SKIP LOCKED)
                RETURNING *
                """, on: connection).map(Self.outgoingMail)
        }
    }

    public func recordMailAttempt(_ id: String, _ attempt: MailAttempt, at date: Date) async throws {
        switch attempt {
        case .sent:
            try await execute(
                "UPDATE mail_outbox SET status = 'sent', attempts = attempts + 1, sent_at = \(Timestamp.millis(date)), last_error = NULL WHERE id = \(id)")
        case .retry(let next, let error):
            try await execute(
                "UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = \(Timestamp.millis(next)), last_error = \(error) WHERE id = \(id)")
        case .failed(let error):
            try await execute("UPDATE mail_outbox SET status = 'failed', attempts = attempts + 1, last_error = \(error) WHERE id = \(id)")
        }
    }

    public func mail(conversation: ConversationID, app: AppID) async throws -> [TranscriptEmail] {
        try await rows(
            "SELECT * FROM mail_outbox WHERE conversation_id = \(conversation.rawValue) AND app_id = \(app.rawValue) ORDER BY created_at, id"
        ).map { try Self.outgoingMail($0).record }
    }

    static func outgoingMail(_ row: PostgresRandomAccessRow) throws -> OutgoingMail {
        OutgoingMail(
            record: TranscriptEmail(
                id: try PostgresRows.string(row, "id"), conversationID: ConversationID(rawValue: try PostgresRows.string(row, "conversation_id")),
                recipient: try PostgresRows.string(row, "recipient"),
                status: TranscriptEmail.Status(rawValue: try PostgresRows.string(row, "status")) ?? .failed,
                attempts: Int(try PostgresRows.int(row, "attempts")), lastError: try PostgresRows.optionalString(row, "last_error"),
                createdAt: try PostgresRows.date(row, "created_at"),
                sentAt: try PostgresRows.optionalInt(row, "sent_at").map(Timestamp.date(millis:))),
            appID: AppID(rawValue: try PostgresRows.string(row, "app_id")), subject: try PostgresRows.string(row, "subject"),
            text: try PostgresRows.string(row, "text_body"), html: try PostgresRows.string(row, "html_body"))
    }
}
