import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func insertCannedResponse(_ response: CannedResponse) async throws {
        try await pool.write { db in
            try Self.checkShortcutFree(response, in: db)
            try db.execute(
                sql: """
                    INSERT INTO canned_responses (id, app_id, owner_id, shortcut, title, text, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [response.id.rawValue, response.appID.rawValue, response.ownerID?.rawValue, response.shortcut, response.title,
                            response.text, Timestamp.millis(response.createdAt), Timestamp.millis(response.updatedAt)])
        }
    }

    public func cannedResponses(app: AppID, owner: AgentID?) async throws -> [CannedResponse] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM canned_responses WHERE app_id = ? AND owner_id IS ? ORDER BY shortcut",
                             arguments: [app.rawValue, owner?.rawValue])
                .map(Self.cannedResponse)
        }
    }

    public func cannedResponse(_ id: CannedResponseID, app: AppID, owner: AgentID?) async throws -> CannedResponse? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM canned_responses WHERE id = ? AND app_id = ? AND owner_id IS ?",
                             arguments: [id.rawValue, app.rawValue, owner?.rawValue])
                .map(Self.cannedResponse)
        }
    }

    public func updateCannedResponse(_ response: CannedResponse) async throws {
        try await pool.write { db in
            // "Not found" before anything about another response's shortcut, so nothing leaks across apps or sets.
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM canned_responses WHERE id = ? AND app_id = ? AND owner_id IS ?",
                                    arguments: [response.id.rawValue, response.appID.rawValue, response.ownerID?.rawValue]) == true
            else { throw StoreError.notFound("canned response not found") }
            try Self.checkShortcutFree(response, in: db)
            try db.execute(
                sql: "UPDATE canned_responses SET shortcut = ?, title = ?, text = ?, updated_at = ? WHERE id = ? AND app_id = ?",
                arguments: [response.shortcut, response.title, response.text, Timestamp.millis(response.updatedAt),
                            response.id.rawValue, response.appID.rawValue])
        }
    }

    public func deleteCannedResponse(_ id: CannedResponseID, app: AppID, owner: AgentID?) async throws -> Bool {
        try await pool.write { db in
            try db.execute(sql: "DELETE FROM canned_responses WHERE id = ? AND app_id = ? AND owner_id IS ?",
                           arguments: [id.rawValue, app.rawValue, owner?.rawValue])
            return db.changesCount > 0
        }
    }

    private static func checkShortcutFree(_ response: CannedResponse, in db: Database) throws {
        if try Bool.fetchOne(db, sql: "SELECT 1 FROM canned_responses WHERE app_id = ? AND owner_id IS ? AND shortcut = ? AND id != ?",
                             arguments: [response.appID.rawValue, response.ownerID?.rawValue, response.shortcut, response.id.rawValue]) == true {
            throw StoreError.duplicate("\(response.ownerID == nil ? "the app" : "your own set") has a canned response with the shortcut \(response.shortcut)")
        }
    }

    private static func cannedResponse(_ row: Row) -> CannedResponse {
        CannedResponse(
            id: CannedResponseID(rawValue: row["id"]), appID: AppID(rawValue: row["app_id"]),
            ownerID: (row["owner_id"] as String?).map(AgentID.init(rawValue:)), shortcut: row["shortcut"],
            title: row["title"], text: row["text"], createdAt: SQLiteRows.date(row, "created_at"), updatedAt: SQLiteRows.date(row, "updated_at"))
    }
}
