import Foundation
import GRDB
import ParleyCore
import ParleyStore
@testable import ParleyStoreSQLite
import Testing

/// Commits never checkpoint the WAL themselves; the background checkpointer copies it into the
/// database file on its own connection, and what it copied reads back.
@Suite("WAL checkpointer")
struct WALCheckpointerTests {
    @Test func commitsDoNotCheckpoint_theCheckpointerCopiesTheWAL() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        var configuration = SQLiteStore.Configuration()
        configuration.checkpointInterval = .seconds(3_600)  // the test runs it by hand
        let path = folder.appendingPathComponent("parley.sqlite").path
        let store = try SQLiteStore(path: path, configuration: configuration)
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        await store.checkpointer.run()  // what setting up wrote

        #expect(try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA wal_autocheckpoint") } == 0,
                "the writer never checkpoints inside a commit")
        // Far more than the 1,000 pages after which SQLite would checkpoint in a commit by default.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<1_500 {
                group.addTask { try await fixture.post(id, by: fixture.visitorParticipant, text: String(repeating: "w", count: 1_000) + "\(index)") }
            }
            try await group.waitForAll()
        }
        let walBefore = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int ?? 0
        #expect(walBefore > 4_096 * 1_000, "the WAL grew past the default checkpoint size: \(walBefore) bytes")
        let fileBefore = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0

        let copied = await store.checkpointer.run()
        #expect(copied > 1_000, "frames copied: \(copied)")
        let fileAfter = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
        #expect(fileAfter > fileBefore, "the messages are in the database file now")
        #expect(store.checkpointer.statistics.frames >= copied)
        #expect(try await fixture.allEvents(id).count == 1_501)
        try await store.close()

        // Reopened from the database file and what is left of the WAL: everything is there.
        let reopened = try SQLiteStore(path: path, configuration: configuration)
        #expect(try await reopened.events(id, app: fixture.app.id, afterSeq: 0, limit: 2_000).count == 1_501)
        try await reopened.close()
    }

    /// The writer fsyncs the WAL at every commit: GRDB sets `synchronous = NORMAL` when it turns WAL
    /// on, after the configuration's own FULL, so the store sets FULL again (power-loss finding F1).
    @Test func theWriter_syncsEveryCommit() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-sync-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = try SQLiteStore(path: folder.appendingPathComponent("parley.sqlite").path)
        let writer = try await store.pool.write { db in try Int.fetchOne(db, sql: "PRAGMA synchronous") }
        #expect(writer == 2, "FULL is 2; NORMAL is 1")
        let journal = try await store.pool.write { db in try String.fetchOne(db, sql: "PRAGMA journal_mode") }
        #expect(journal == "wal")
        try await store.close()
    }
}
