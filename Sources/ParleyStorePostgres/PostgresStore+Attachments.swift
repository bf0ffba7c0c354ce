import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func attachment(_ id: AttachmentID, conversation: ConversationID, app: AppID) async throws -> AttachmentRecord? {
        try await rows("SELECT * FROM attachments WHERE id = \(id.rawValue) AND conversation_id = \(conversation.rawValue) AND app_id = \(app.rawValue)")
            .first.map(Self.attachmentRecord)
    }

    public func attachments(sentBefore date: Date, app: AppID, limit: Int) async throws -> [AttachmentRecord] {
        try await rows("""
            SELECT * FROM attachments WHERE app_id = \(app.rawValue) AND created_at < \(Timestamp.millis(date)) AND deleted_at IS NULL
            ORDER BY created_at, id LIMIT \(Int64(limit))
            """).map(Self.attachmentRecord)
    }

    public func markAttachmentDeleted(_ id: AttachmentID, app: AppID, at date: Date) async throws -> Bool {
        try await transaction { connection in
            guard let row = try await rows("SELECT sha256 FROM attachments WHERE id = \(id.rawValue) AND app_id = \(app.rawValue) FOR UPDATE",
                                           on: connection).first else { return false }
            let sha256 = try PostgresRows.string(row, "sha256")
            try await connection.query(
                "UPDATE attachments SET deleted_at = \(Timestamp.millis(date)) WHERE id = \(id.rawValue) AND deleted_at IS NULL", logger: logger)
            return try await !exists("SELECT 1 FROM attachments WHERE sha256 = \(sha256) AND deleted_at IS NULL", on: connection)
        }
    }

    public func isBlobReferenced(sha256: String) async throws -> Bool {
        try await exists("SELECT 1 FROM attachments WHERE sha256 = \(sha256) AND deleted_at IS NULL")
    }

    static func attachmentRecord(_ row: PostgresRandomAccessRow) throws -> AttachmentRecord {
        AttachmentRecord(
            attachment: Attachment(
                id: AttachmentID(rawValue: try PostgresRows.string(row, "id")), name: try PostgresRows.string(row, "name"),
                contentType: try PostgresRows.string(row, "content_type"), size: try PostgresRows.int(row, "size"),
                sha256: try PostgresRows.string(row, "sha256")),
            conversationID: ConversationID(rawValue: try PostgresRows.string(row, "conversation_id")),
            appID: AppID(rawValue: try PostgresRows.string(row, "app_id")), seq: try PostgresRows.int(row, "seq"),
            createdAt: try PostgresRows.date(row, "created_at"),
            deletedAt: try PostgresRows.optionalInt(row, "deleted_at").map(Timestamp.date(millis:)))
    }
}

/// Blobs as 1 MiB chunks in PostgreSQL (`blob_chunks`), with a row in `blobs` written last in the
/// same transaction: a blob is there whole or not at all, on every node.
struct PostgresBlobStore: BlobStore {
    let store: PostgresStore
    static let chunkSize = 1 << 20

    var stagingDirectory: URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-uploads-\(store.nodeID)", isDirectory: true)
    }

    func put(stagedFile: URL, sha256: String, size: Int64, at date: Date) async throws {
        defer { try? FileManager.default.removeItem(at: stagedFile) }
        if try await contains(sha256: sha256) {
            try await store.execute("UPDATE blobs SET stored_at = \(Timestamp.millis(date)) WHERE sha256 = \(sha256)")
            return
        }
        let handle = try FileHandle(forReadingFrom: stagedFile)
        defer { try? handle.close() }
        let logger = store.logger
        try await store.transaction { connection in
            var chunk: Int32 = 0
            while let data = try handle.read(upToCount: Self.chunkSize), !data.isEmpty {
                try await connection.query(
                    "INSERT INTO blob_chunks (sha256, chunk, data) VALUES (\(sha256), \(chunk), \(ByteBuffer(bytes: data))) ON CONFLICT DO NOTHING",
                    logger: logger)
                chunk += 1
            }
            try await connection.query(
                "INSERT INTO blobs (sha256, size, stored_at) VALUES (\(sha256), \(size), \(Timestamp.millis(date))) ON CONFLICT DO NOTHING",
                logger: logger)
        }
    }

    func read(sha256: String, range: Range<Int64>) -> BlobChunks {
        let store = store
        return BlobChunks {
            let size = Int64(Self.chunkSize)
            let next = Locked<Int32>(range.isEmpty ? 1 : Int32(range.lowerBound / size))
            let last: Int32 = range.isEmpty ? 0 : Int32((range.upperBound - 1) / size)
            // One chunk per query, only when asked for: a 50 MB file never sits in memory whole.
            return {
                let chunk = next.withLock { value -> Int32? in
                    guard value <= last else { return nil }
                    defer { value += 1 }
                    return value
                }
                guard let chunk else { return nil }
                guard let row = try await store.rows("SELECT data FROM blob_chunks WHERE sha256 = \(sha256) AND chunk = \(chunk)").first else {
                    throw StoreError.notFound("the stored file \(sha256) lacks a part")
                }
                var buffer = try row["data"].decode(ByteBuffer.self)
                let start = Int64(chunk) * size
                let from = Int(max(range.lowerBound - start, 0)), to = Int(min(range.upperBound - start, Int64(buffer.readableBytes)))
                buffer.moveReaderIndex(forwardBy: from)
                return Data(buffer.readBytes(length: to - from) ?? [])
            }
        }
    }

    func contains(sha256: String) async throws -> Bool {
        try await store.exists("SELECT 1 FROM blobs WHERE sha256 = \(sha256)")
    }

    func delete(sha256: String, storedBefore date: Date) async throws {
        _ = try await store.transaction { connection in
            let gone = try await connection.query(
                "DELETE FROM blobs WHERE sha256 = \(sha256) AND stored_at < \(Timestamp.millis(date)) RETURNING sha256", logger: store.logger).collect()
            if !gone.isEmpty {
                try await connection.query("DELETE FROM blob_chunks WHERE sha256 = \(sha256)", logger: store.logger)
            }
        }
    }

    func hashes(storedBefore date: Date) async throws -> [String] {
        try await store.rows("SELECT sha256 FROM blobs WHERE stored_at < \(Timestamp.millis(date))").map { try PostgresRows.string($0, "sha256") }
    }
}
