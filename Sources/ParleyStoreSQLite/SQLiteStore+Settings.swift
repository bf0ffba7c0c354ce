import Foundation
import GRDB
import ParleyCore
import ParleyStore

extension SQLiteStore {
    public func setting(_ key: String, app: AppID) async throws -> String? {
        try await pool.read { db in
            try String.fetchOne(db, sql: "SELECT value FROM app_settings WHERE app_id = ? AND key = ?", arguments: [app.rawValue, key])
        }
    }

    public func setSetting(_ key: String, app: AppID, value: String?, at: Date) async throws {
        try await committer.write { db in
            guard try Bool.fetchOne(db, sql: "SELECT 1 FROM apps WHERE id = ?", arguments: [app.rawValue]) == true
            else { throw StoreError.notFound("app not found") }
            if let value {
                try db.execute(
                    sql: """
                        INSERT INTO app_settings (app_id, key, value, updated_at) VALUES (?, ?, ?, ?)
                        ON CONFLICT (app_id, key) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at
                        """,
                    arguments: [app.rawValue, key, value, Timestamp.millis(at)])
            } else {
                try db.execute(sql: "DELETE FROM app_settings WHERE app_id = ? AND key = ?", arguments: [app.rawValue, key])
            }
        }
    }

    public func waitSamples(queue: QueueID, since: Date, limit: Int) async throws -> [WaitEstimator.Sample] {
        try await pool.read { db in
            try Row.fetchAll(
                db, sql: "SELECT queued_at, assigned_at FROM wait_samples WHERE queue_id = ? AND assigned_at >= ? ORDER BY assigned_at DESC LIMIT ?",
                arguments: [queue.rawValue, Timestamp.millis(since), limit]
            ).map { WaitEstimator.Sample(queuedAt: Timestamp.date(millis: $0["queued_at"]), assignedAt: Timestamp.date(millis: $0["assigned_at"])) }
        }
    }
}
