import ParleyCore
import Foundation
import GRDB

/// Copies the write-ahead log into the database file in the background, on a connection of its
/// own, so no commit waits for it.
///
/// By default SQLite checkpoints inside the commit that grows the WAL past 1,000 pages: that one
/// commit then also writes and fsyncs the database file, and every message waiting behind it in the
/// group commit stalls (a p99 spike now and then). The writer turns automatic checkpoints off
/// (`wal_autocheckpoint = 0`); this runs a PASSIVE checkpoint — which never blocks the writer or the
/// readers — after commits, at most every `interval`. Durability does not depend on it: a commit is
/// durable once its WAL frames are fsync'd.
final class WALCheckpointer: Sendable {
    private let connection: DatabaseQueue
    private let interval: Duration
    private let pending = Locked(false)
    private let task = Locked<Task<Void, Never>?>(nil)
    private let counts = Locked((runs: 0, frames: 0))

    init(path: String, interval: Duration) throws {
        var configuration = GRDB.Configuration()
        // A checkpoint that meets a busy lock just tries again next time; it never waits long.
        configuration.busyMode = .timeout(0.05)
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA wal_autocheckpoint = 0") }
        connection = try DatabaseQueue(path: path, configuration: configuration)
        self.interval = interval
    }

    /// Starts checkpointing in the background until ``stop()``.
    func start() {
        let task = Task { [weak self] in
            var idleRounds = 0
            while !Task.isCancelled {
                guard let interval = self?.interval else { return }
                try? await Task.sleep(for: interval)
                // Writes outside the group commit (sessions, settings) are rare; a round now and
                // then takes them too.
                idleRounds += 1
                if idleRounds >= 40 {
                    idleRounds = 0
                    self?.pending.withLock { $0 = true }
                }
                await self?.runIfCommitted()
            }
        }
        self.task.withLock { $0 = task }
    }

    /// Tells the checkpointer that a transaction committed (called once per group transaction).
    func noteCommit() { pending.withLock { $0 = true } }

    /// Checkpoints now when anything committed since the last run.
    func runIfCommitted() async {
        guard pending.withLock({ value in defer { value = false }; return value }) else { return }
        await run()
    }

    /// One PASSIVE checkpoint: copies what no reader still needs. Returns the frames copied.
    ///
    /// It runs on the connection's own queue (GRDB's async access), never on a thread of Swift's
    /// cooperative pool: the checkpoint fsyncs, and a pool thread stuck in an fsync is one the
    /// whole process is without (two on this machine).
    @discardableResult
    func run() async -> Int {
        let copied = (try? await connection.writeWithoutTransaction { db in try db.checkpoint(.passive) })?.checkpointedFrameCount ?? 0
        counts.withLock { counts in
            counts.runs += 1
            counts.frames += max(0, copied)
        }
        return copied
    }

    /// Checkpoints run so far and frames they copied.
    var statistics: (runs: Int, frames: Int) { counts.withLock { $0 } }

    /// Stops the background task and closes the connection.
    func stop() async {
        let task = self.task.withLock { task in
            defer { task = nil }
            return task
        }
        task?.cancel()
        await task?.value
        try? connection.close()
    }
}
