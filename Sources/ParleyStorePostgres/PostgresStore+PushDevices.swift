import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func registerPushDevice(_ record: PushDeviceRecord) async throws -> PushDeviceRecord {
        let request = String(decoding: try ParleyJSON.encode(record.request), as: UTF8.self)
        let app = record.appID.rawValue, provider = record.request.provider.rawValue, token = record.request.token
        return try await transaction { connection in
            guard try await exists("SELECT 1 FROM visitors WHERE id = \(record.visitorID.rawValue) AND app_id = \(app)", on: connection)
            else { throw StoreError.notFound("visitor not found") }
            // The token moves to this device and visitor: no other row keeps it.
            try await connection.query(
                "DELETE FROM push_devices WHERE app_id = \(app) AND provider = \(provider) AND token = \(token) AND device_id <> \(record.deviceID)",
                logger: logger)
            let rows = try await connection.query(
                """
                INSERT INTO push_devices (app_id, device_id, visitor_id, provider, token, request, created_at, updated_at)
                VALUES (\(app), \(record.deviceID), \(record.visitorID.rawValue), \(provider), \(token), \(request),
                        \(Timestamp.millis(record.createdAt)), \(Timestamp.millis(record.updatedAt)))
                ON CONFLICT (app_id, device_id) DO UPDATE SET visitor_id = excluded.visitor_id, provider = excluded.provider,
                    token = excluded.token, request = excluded.request, updated_at = excluded.updated_at
                RETURNING created_at
                """, logger: logger).collect()
            var stored = record
            if let row = rows.first?.makeRandomAccess() { stored.createdAt = try PostgresRows.date(row, "created_at") }
            return stored
        }
    }

    public func removePushDevice(_ deviceID: String, visitor: VisitorID, app: AppID) async throws -> Bool {
        try await !rows(
            "DELETE FROM push_devices WHERE app_id = \(app.rawValue) AND device_id = \(deviceID) AND visitor_id = \(visitor.rawValue) RETURNING 1"
        ).isEmpty
    }

    public func removePushToken(_ token: String, provider: PushProvider, app: AppID) async throws {
        _ = try await rows("DELETE FROM push_devices WHERE app_id = \(app.rawValue) AND provider = \(provider.rawValue) AND token = \(token) RETURNING 1")
    }

    public func pushDevices(visitor: VisitorID, app: AppID) async throws -> [PushDeviceRecord] {
        try await rows(
            """
            SELECT device_id, request, created_at, updated_at FROM push_devices
            WHERE app_id = \(app.rawValue) AND visitor_id = \(visitor.rawValue) ORDER BY created_at, device_id
            """
        ).map { row in
            PushDeviceRecord(appID: app, visitorID: visitor, deviceID: try PostgresRows.string(row, "device_id"),
                             request: try ParleyJSON.decode(PushDeviceRequest.self, from: Data(try PostgresRows.string(row, "request").utf8)),
                             createdAt: try PostgresRows.date(row, "created_at"), updatedAt: try PostgresRows.date(row, "updated_at"))
        }
    }
}
