import Foundation
import ParleyCore
import ParleyStore
import PostgresNIO

extension PostgresStore {
    public func setting(_ key: String, app: AppID) async throws -> String? {
        try await rows("SELECT value FROM app_settings WHERE app_id = \(app.rawValue) AND key = \(key)").first
            .map { try PostgresRows.string($0, "value") }
    }

    public func setSetting(_ key: String, app: AppID, value: String?, at: Date) async throws {
        try await transaction { connection in
            guard try await exists("SELECT 1 FROM apps WHERE id = \(app.rawValue)", on: connection) else { throw StoreError.notFound("app not found") }
            if let value {
                try await connection.query(
                    """
                    INSERT INTO app_settings (app_id, key, value, updated_at) VALUES (\(app.rawValue), \(key), \(value), \(Timestamp.millis(at)))
                    ON CONFLICT (app_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                    """, logger: logger)
            } else {
                try await connection.query("DELETE FROM app_settings WHERE app_id = \(app.rawValue) AND key = \(key)", logger: logger)
            }
        }
    }

    public func waitSamples(queue: QueueID, since: Date, limit: Int) async throws -> [WaitEstimator.Sample] {
        try await rows(
            """
            SELECT queued_at, assigned_at FROM wait_samples WHERE queue_id = \(queue.rawValue) AND assigned_at >= \(Timestamp.millis(since))
            ORDER BY assigned_at DESC LIMIT \(Int64(limit))
            """
        ).map { WaitEstimator.Sample(queuedAt: try PostgresRows.date($0, "queued_at"), assignedAt: try PostgresRows.date($0, "assigned_at")) }
    }
}
