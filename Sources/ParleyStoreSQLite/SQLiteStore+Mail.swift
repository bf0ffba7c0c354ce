import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func enqueueMail(_ mail: OutgoingMail) async throws {
        try await committer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM conversations WHERE id = ? AND app_id = ?",
                                    arguments: [mail.record.conversationID.rawValue, mail.appID.rawValue]) == true
            else { throw StoreError.notFound("conversation not found") }
            let r = mail.record
            try db.execute(
                sql: """
                    INSERT INTO mail_outbox (id, app_id, conversation_id, recipient, subject, text_body, html_body, status, attempts,
                        next_attempt_at, last_error, created_at, sent_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [r.id, mail.appID.rawValue, r.conversationID.rawValue, r.recipient, mail.subject, mail.text, mail.html,
                            r.status.rawValue, r.attempts, Timestamp.millis(r.createdAt), r.lastError, Timestamp.millis(r.createdAt),
                            r.sentAt.map(Timestamp.millis)])
        }
    }

    public func claimDueMail(now: Date, lease: TimeInterval, limit: Int) async throws -> [OutgoingMail] {
        try await committer.write { db in
            let rows = try Row.fetchAll(
                db, sql: "SELECT * FROM mail_outbox WHERE status = 'pending' AND next_attempt_at <= ? ORDER BY next_attempt_at LIMIT ?",
                arguments: [Timestamp.millis(now), limit])
            for row in rows {
                try db.execute(sql: "UPDATE mail_outbox SET next_attempt_at = ? WHERE id = ?",
                               arguments: [Timestamp.millis(now.addingTimeInterval(lease)), row["id"] as String])
            }
            return rows.map(Self.outgoingMail)
        }
    }

    public func recordMailAttempt(_ id: String, _ attempt: MailAttempt, at date: Date) async throws {
        try await committer.write { db in
            switch attempt {
            case .sent:
                try db.execute(sql: "UPDATE mail_outbox SET status = 'sent', attempts = attempts + 1, sent_at = ?, last_error = NULL WHERE id = ?",
                               arguments: [Timestamp.millis(date), id])
            case .retry(let next, let error):
                try db.execute(sql: "UPDATE mail_outbox SET attempts = attempts + 1, next_attempt_at = ?, last_error = ? WHERE id = ?",
                               arguments: [Timestamp.millis(next), error, id])
            case .failed(let error):
                try db.execute(sql: "UPDATE mail_outbox SET status = 'failed', attempts = attempts + 1, last_error = ? WHERE id = ?",
                               arguments: [error, id])
            }
        }
    }

    public func mail(conversation: ConversationID, app: AppID) async throws -> [TranscriptEmail] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM mail_outbox WHERE conversation_id = ? AND app_id = ? ORDER BY created_at, id",
                             arguments: [conversation.rawValue, app.rawValue]).map { Self.outgoingMail($0).record }
        }
    }

    static func outgoingMail(_ row: Row) -> OutgoingMail {
        OutgoingMail(
            record: TranscriptEmail(
                id: row["id"], conversationID: ConversationID(rawValue: row["conversation_id"]), recipient: row["recipient"],
                status: TranscriptEmail.Status(rawValue: row["status"]) ?? .failed, attempts: row["attempts"], lastError: row["last_error"],
                createdAt: Timestamp.date(millis: row["created_at"]), sentAt: (row["sent_at"] as Int64?).map(Timestamp.date(millis:))),
            appID: AppID(rawValue: row["app_id"]), subject: row["subject"], text: row["text_body"], html: row["html_body"])
    }
}
