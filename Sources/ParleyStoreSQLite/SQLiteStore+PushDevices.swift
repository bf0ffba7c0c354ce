import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func registerPushDevice(_ record: PushDeviceRecord) async throws -> PushDeviceRecord {
        let request = String(decoding: try ParleyJSON.encode(record.request), as: UTF8.self)
        return try await committer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM visitors WHERE id = ? AND app_id = ?",
                                    arguments: [record.visitorID.rawValue, record.appID.rawValue]) == true
            else { throw StoreError.notFound("visitor not found") }
            // The token moves to this device and visitor: no other row keeps it.
            try db.execute(sql: "DELETE FROM push_devices WHERE app_id = ? AND provider = ? AND token = ? AND device_id <> ?",
                           arguments: [record.appID.rawValue, record.request.provider.rawValue, record.request.token, record.deviceID])
            let created = try Int64.fetchOne(db, sql: "SELECT created_at FROM push_devices WHERE app_id = ? AND device_id = ?",
                                             arguments: [record.appID.rawValue, record.deviceID])
            try db.execute(
                sql: """
                    INSERT INTO push_devices (app_id, device_id, visitor_id, provider, token, request, created_at, updated_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?)
                    ON CONFLICT (app_id, device_id) DO UPDATE SET visitor_id = excluded.visitor_id, provider = excluded.provider,
                        token = excluded.token, request = excluded.request, updated_at = excluded.updated_at
                    """,
                arguments: [record.appID.rawValue, record.deviceID, record.visitorID.rawValue, record.request.provider.rawValue,
                            record.request.token, request, created ?? Timestamp.millis(record.createdAt), Timestamp.millis(record.updatedAt)])
            var stored = record
            if let created { stored.createdAt = Timestamp.date(millis: created) }
            return stored
        }
    }

    public func removePushDevice(_ deviceID: String, visitor: VisitorID, app: AppID) async throws -> Bool {
        try await committer.write { db in
            try db.execute(sql: "DELETE FROM push_devices WHERE app_id = ? AND device_id = ? AND visitor_id = ?",
                           arguments: [app.rawValue, deviceID, visitor.rawValue])
            return db.changesCount > 0
        }
    }

    public func removePushToken(_ token: String, provider: PushProvider, app: AppID) async throws {
        try await committer.write { db in
            try db.execute(sql: "DELETE FROM push_devices WHERE app_id = ? AND provider = ? AND token = ?",
                           arguments: [app.rawValue, provider.rawValue, token])
        }
    }

    public func pushDevices(visitor: VisitorID, app: AppID) async throws -> [PushDeviceRecord] {
        try await pool.read { db in
            try Row.fetchAll(db, sql: """
                SELECT device_id, request, created_at, updated_at FROM push_devices
                WHERE app_id = ? AND visitor_id = ? ORDER BY created_at, device_id
                """, arguments: [app.rawValue, visitor.rawValue]
            ).map { row in
                PushDeviceRecord(appID: app, visitorID: visitor, deviceID: row["device_id"],
                                 request: try ParleyJSON.decode(PushDeviceRequest.self, from: Data((row["request"] as String).utf8)),
                                 createdAt: Timestamp.date(millis: row["created_at"]), updatedAt: Timestamp.date(millis: row["updated_at"]))
            }
        }
    }
}
