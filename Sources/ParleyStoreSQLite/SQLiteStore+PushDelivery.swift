import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func pushSettings(app: AppID) async throws -> StoredPushSettings? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM push_settings WHERE app_id = ?", arguments: [app.rawValue]).map { row in
                StoredPushSettings(
                    appID: app, settings: try ParleyJSON.decode(PushSettings.self, from: Data((row["settings"] as String).utf8)),
                    sealedAPNsKey: row["apns_key"], sealedFCMAccount: row["fcm_account"], updatedAt: SQLiteRows.date(row, "updated_at"))
            }
        }
    }

    public func savePushSettings(_ stored: StoredPushSettings) async throws {
        let settings = String(decoding: try ParleyJSON.encode(stored.settings), as: UTF8.self)
        try await committer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM apps WHERE id = ?", arguments: [stored.appID.rawValue]) == true else {
                throw StoreError.notFound("app not found")
            }
            try db.execute(
                sql: """
                    INSERT INTO push_settings (app_id, settings, apns_key, fcm_account, updated_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (app_id) DO UPDATE SET settings = excluded.settings, apns_key = excluded.apns_key,
                        fcm_account = excluded.fcm_account, updated_at = excluded.updated_at
                    """,
                arguments: [stored.appID.rawValue, settings, stored.sealedAPNsKey, stored.sealedFCMAccount, Timestamp.millis(stored.updatedAt)])
        }
    }

    public func pushApps() async throws -> Set<AppID> {
        try await pool.read { db in
            Set(try String.fetchAll(db, sql: "SELECT app_id FROM push_settings WHERE apns_key IS NOT NULL OR fcm_account IS NOT NULL")
                .map(AppID.init(rawValue:)))
        }
    }

    public func pushDevice(_ deviceID: String, app: AppID) async throws -> PushDeviceRecord? {
        try await pool.read { db in
            try Row.fetchOne(db, sql: """
                SELECT visitor_id, device_id, request, created_at, updated_at FROM push_devices WHERE app_id = ? AND device_id = ?
                """, arguments: [app.rawValue, deviceID]
            ).map { row in
                PushDeviceRecord(appID: app, visitorID: VisitorID(rawValue: row["visitor_id"]), deviceID: row["device_id"],
                                 request: try ParleyJSON.decode(PushDeviceRequest.self, from: Data((row["request"] as String).utf8)),
                                 createdAt: Timestamp.date(millis: row["created_at"]), updatedAt: Timestamp.date(millis: row["updated_at"]))
            }
        }
    }

    public func unreadCount(visitor: VisitorID, app: AppID) async throws -> Int {
        try await pool.read { db in
            try Int.fetchOne(db, sql: """
                SELECT COUNT(*) FROM conversations c JOIN events e ON e.conversation_id = c.id
                WHERE c.app_id = ? AND c.visitor_id = ? AND e.type IN ('message', 'page_pushed') AND e.author_role = 'agent'
                  AND e.seq > COALESCE((SELECT r.read_seq FROM read_markers r
                                        WHERE r.conversation_id = c.id AND r.participant_role = 'visitor' AND r.participant_id = c.visitor_id), 0)
                """, arguments: [app.rawValue, visitor.rawValue]) ?? 0
        }
    }
}
