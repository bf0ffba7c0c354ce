import CoreMetrics
import Foundation
import GRDB
import Logging
import ParleyCore
import ParleyStore

/// The embedded default store: one SQLite file in WAL mode with `synchronous=FULL`, so a commit is on
/// disk before anyone is told; concurrent conversation changes are group-committed (one fsync each batch).
public final class SQLiteStore: ParleyStore {
    /// Settings for opening the database.
    public struct Configuration: Sendable {
        /// The most changes committed in one transaction. Default 512.
        public var maxBatch: Int = 512
        /// How long a connection waits for a lock before failing. Default 10 s.
        public var busyTimeout: TimeInterval = 10
        /// How often the background checkpointer copies the WAL into the database file, when
        /// anything committed (``WALCheckpointer``); commits never checkpoint themselves. Default 250 ms.
        public var checkpointInterval: Duration = .milliseconds(250)
        /// Where the store's figures go (`parley_commit_batch_size`: changes per transaction;
        /// `parley_commit_transaction_seconds`: each transaction with its fsync). Default nil: none.
        public var metricsFactory: (any MetricsFactory)?
        /// The logger; the store logs at debug level only. Default: a silent logger.
        public var logger: Logger = Logger(label: "parley.store.sqlite", factory: { _ in SwiftLogNoOpLogHandler() })

        public init() {}
    }

    let pool: DatabasePool
    /// Attachments' bytes, in `<database path>-attachments`.
    public let blobs: any BlobStore
    let committer: GroupCommitter
    let checkpointer: WALCheckpointer
    let logger: Logger
    private let storedEpoch: String

    /// Opens (creating if needed) the database at `path` and runs pending migrations.
    /// - Throws: a GRDB error when the file cannot be opened or migrated.
    public init(path: String, configuration: Configuration = Configuration()) throws {
        var config = GRDB.Configuration()
        config.busyMode = .timeout(configuration.busyTimeout)
        config.foreignKeysEnabled = true
        config.prepareDatabase { db in
            // FULL: the WAL is fsync'd at every commit, so an acknowledged write survives power loss.
            try db.execute(sql: "PRAGMA synchronous = FULL")
            // No checkpoint inside a commit: the WALCheckpointer does it on its own connection.
            try db.execute(sql: "PRAGMA wal_autocheckpoint = 0")
            if !db.configuration.readonly {
                // The writer's page cache holds a whole group transaction's pages: with SQLite's
                // default 2 MiB, a large batch spilled dirty pages into the WAL mid-transaction (a
                // fifth of the server's time under load), and pages touched twice went twice.
                try db.execute(sql: "PRAGMA cache_size = -32768")
                // Statement and savepoint journals in memory, not in temporary files.
                try db.execute(sql: "PRAGMA temp_store = MEMORY")
            }
        }
        pool = try DatabasePool(path: path, configuration: config)
        // GRDB switches the writer to WAL after `prepareDatabase` and sets `synchronous = NORMAL`
        // as it does (Database.setUpWALMode): commits then return before the WAL reaches the disk,
        // and a power cut loses acknowledged messages (scripts/faults/power-loss.sh found it). Set
        // FULL again on the writer, once it is in WAL mode.
        try pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        blobs = try FileBlobStore(root: URL(fileURLWithPath: path + "-attachments", isDirectory: true))
        try SQLiteMigrations.makeMigrator().migrate(pool)
        storedEpoch = try pool.write { db in
            if let epoch = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = 'epoch'") {
                return epoch
            }
            let epoch = UUID().uuidString.lowercased()
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES ('epoch', ?)", arguments: [epoch])
            return epoch
        }
        checkpointer = try WALCheckpointer(path: path, interval: configuration.checkpointInterval)
        committer = GroupCommitter(
            writer: pool, maxBatch: configuration.maxBatch, metrics: configuration.metricsFactory.map { .init(factory: $0) },
            onCommit: { [checkpointer] in checkpointer.noteCommit() })
        logger = configuration.logger
        checkpointer.start()
    }

    public func epoch() async throws -> String { storedEpoch }

    public func appliedMigrations() async throws -> [String] {
        try await pool.read { db in try SQLiteMigrations.makeMigrator().appliedIdentifiers(db).sorted() }
    }

    public func sharedSecret(_ name: String, proposed: Data) async throws -> Data {
        let key = "secret:" + name
        return try await pool.write { db in
            try db.execute(sql: "INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO NOTHING",
                           arguments: [key, proposed.base64EncodedString()])
            guard let text = try String.fetchOne(db, sql: "SELECT value FROM meta WHERE key = ?", arguments: [key]),
                  let secret = Data(base64Encoded: text)
            else { throw StoreError.invalidState("the secret \(name) is unreadable") }
            return secret
        }
    }

    /// How conversation changes were grouped into transactions so far.
    public var groupCommitStatistics: GroupCommitStatistics { committer.statistics }

    public func close() async throws {
        // First every conversation change handed in, then every other write in flight (a barrier
        // runs after every write queued before it); only then the file.
        await committer.close()
        try await pool.barrierWriteWithoutTransaction { _ in }
        await checkpointer.stop()
        try pool.close()
    }
}
