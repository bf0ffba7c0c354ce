import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func attachment(_ id: AttachmentID, conversation: ConversationID, app: AppID) async throws -> AttachmentRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM attachments WHERE id = ? AND conversation_id = ? AND app_id = ?",
                             arguments: [id.rawValue, conversation.rawValue, app.rawValue]).map(Self.attachmentRecord)
        }
    }

    public func attachments(sentBefore date: Date, app: AppID, limit: Int) async throws -> [AttachmentRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT * FROM attachments WHERE app_id = ? AND created_at < ? AND deleted_at IS NULL ORDER BY created_at, id LIMIT ?
                """, arguments: [app.rawValue, Timestamp.millis(date), limit]).map(Self.attachmentRecord)
        }
    }

    public func markAttachmentDeleted(_ id: AttachmentID, app: AppID, at date: Date) async throws -> Bool {
        try await pool.write { db in
            guard let sha256 = try String.fetchOne(db, sql: "SELECT sha256 FROM attachments WHERE id = ? AND app_id = ?",
                                                   arguments: [id.rawValue, app.rawValue]) else { return false }
            try db.execute(sql: "UPDATE attachments SET deleted_at = ? WHERE id = ? AND deleted_at IS NULL",
                           arguments: [Timestamp.millis(date), id.rawValue])
            return try Int.fetchOne(db, sql: "SELECT count(*) FROM attachments WHERE sha256 = ? AND deleted_at IS NULL", arguments: [sha256]) == 0
        }
    }

    public func isBlobReferenced(sha256: String) async throws -> Bool {
        try await pool.read { db in
            try Bool.fetchOne(db, sql: "SELECT EXISTS (SELECT 1 FROM attachments WHERE sha256 = ? AND deleted_at IS NULL)", arguments: [sha256]) ?? false
        }
    }

    static func attachmentRecord(_ row: Row) -> AttachmentRecord {
        AttachmentRecord(
            attachment: Attachment(id: AttachmentID(rawValue: row["id"]), name: row["name"], contentType: row["content_type"],
                                   size: row["size"], sha256: row["sha256"]),
            conversationID: ConversationID(rawValue: row["conversation_id"]), appID: AppID(rawValue: row["app_id"]), seq: row["seq"],
            createdAt: Timestamp.date(millis: row["created_at"]),
            deletedAt: (row["deleted_at"] as Int64?).map(Timestamp.date(millis:)))
    }
}
