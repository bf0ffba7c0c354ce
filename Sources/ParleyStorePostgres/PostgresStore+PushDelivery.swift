import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func pushSettings(app: AppID) async throws -> StoredPushSettings? {
        guard let row = try await rows("SELECT * FROM push_settings WHERE app_id = \(app.rawValue)").first else { return nil }
        return StoredPushSettings(
            appID: app, settings: try ParleyJSON.decode(PushSettings.self, from: Data(try PostgresRows.string(row, "settings").utf8)),
            sealedAPNsKey: try PostgresRows.optionalString(row, "apns_key"), sealedFCMAccount: try PostgresRows.optionalString(row, "fcm_account"),
            updatedAt: try PostgresRows.date(row, "updated_at"))
    }

    public func savePushSettings(_ stored: StoredPushSettings) async throws {
        let settings = String(decoding: try ParleyJSON.encode(stored.settings), as: UTF8.self)
        try await transaction { connection in
            guard try await exists("SELECT 1 FROM apps WHERE id = \(stored.appID.rawValue)", on: connection)
            else { throw StoreError.notFound("app not found") }
            try await connection.query(
                """
                INSERT INTO push_settings (app_id, settings, apns_key, fcm_account, updated_at)
                VALUES (\(stored.appID.rawValue), \(settings), \(stored.sealedAPNsKey), \(stored.sealedFCMAccount), \(Timestamp.millis(stored.updatedAt)))
                ON CONFLICT (app_id) DO UPDATE SET settings = excluded.settings, apns_key = excluded.apns_key,
                    fcm_account = excluded.fcm_account, updated_at = excluded.updated_at
                """, logger: logger)
        }
    }

    public func pushApps() async throws -> Set<AppID> {
        Set(try await rows("SELECT app_id FROM push_settings WHERE apns_key IS NOT NULL OR fcm_account IS NOT NULL")
            .map { AppID(rawValue: try PostgresRows.string($0, "app_id")) })
    }

    public func pushDevice(_ deviceID: String, app: AppID) async throws -> PushDeviceRecord? {
        guard let row = try await rows(
            """
            SELECT visitor_id, device_id, request, created_at, updated_at FROM push_devices
            WHERE app_id = \(app.rawValue) AND device_id = \(deviceID)
            """).first
        else { return nil }
        return PushDeviceRecord(
            appID: app, visitorID: VisitorID(rawValue: try PostgresRows.string(row, "visitor_id")), deviceID: try PostgresRows.string(row, "device_id"),
            request: try ParleyJSON.decode(PushDeviceRequest.self, from: Data(try PostgresRows.string(row, "request").utf8)),
            createdAt: try PostgresRows.date(row, "created_at"), updatedAt: try PostgresRows.date(row, "updated_at"))
    }

    public func unreadCount(visitor: VisitorID, app: AppID) async throws -> Int {
        let found = try await rows(
            """
            SELECT COUNT(*) AS unread FROM conversations c JOIN events e ON e.conversation_id = c.id
            WHERE c.app_id = \(app.rawValue) AND c.visitor_id = \(visitor.rawValue) AND e.type IN ('message', 'page_pushed') AND e.author_role = 'agent'
              AND e.seq > COALESCE((SELECT r.read_seq FROM read_markers r
                                    WHERE r.conversation_id = c.id AND r.participant_role = 'visitor' AND r.participant_id = c.visitor_id), 0)
            """)
        return Int(try found.first.map { try PostgresRows.int($0, "unread") } ?? 0)
    }
}
