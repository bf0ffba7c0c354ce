import CoreMetrics
import GRDB
import ParleyStore

/// Runs many independent writes in one SQLite transaction, so they share one fsync.
///
/// The gathering is ``BatchQueue``'s: under no load a write commits alone at once; under load
/// batches grow by themselves, up to `maxBatch`. Every waiter is resumed only after the transaction
/// holding its unit is committed, i.e. durable; one unit's error fails only that unit.
final class GroupCommitter: Sendable {
    typealias Work = @Sendable (Database) throws -> any Sendable

    private let queue: BatchQueue<Work, any Sendable>

    /// - Parameter onCommit: called after each transaction commits (the WAL checkpointer counts them).
    init(writer: DatabasePool, maxBatch: Int = 512, metrics: BatchQueue<Work, any Sendable>.Metrics? = nil,
         onCommit: @escaping @Sendable () -> Void = {}) {
        queue = BatchQueue(maxBatch: maxBatch, metrics: metrics) { works in
            let results = try await Self.run(works, on: writer)
            onCommit()
            return results
        }
    }

    /// Refuses new work and waits until everything handed in before is committed.
    func close() async { await queue.close() }

    /// What the committer has done since the store opened.
    var statistics: GroupCommitStatistics { queue.statistics }

    /// Runs `work` in the next group transaction and returns its value once that is durable.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await queue.submit({ try work($0) }) as! T  // the closure returned a T, boxed; the cast cannot fail
    }
}

extension GroupCommitter {
    /// A unit threw after it had written: only a transaction of its own can undo it.
    private struct WroteThenFailed: Error {}

    /// Runs a batch's units in one transaction, each as if alone.
    ///
    /// Units almost never fail, and when they do it is almost always before they write (a refusal
    /// decided from what they read). So the batch first runs with no savepoint at all — a savepoint
    /// made SQLite copy every page the batch dirtied into a sub-journal, a fifth of the server's time
    /// under load. A unit that throws without having changed a row (`totalChangesCount` did not
    /// move) is simply answered with its error. Only a unit that throws after writing makes the
    /// transaction roll back, and the batch runs again in a new one, each unit in its own savepoint,
    /// so the failing one's writes roll back alone. Units are functions of the database and their
    /// inputs, so the second run gives the same results for the units that succeeded.
    static func run(_ works: [Work], on writer: some DatabaseWriter) async throws -> [Result<any Sendable, any Error>] {
        do {
            return try await writer.write { db in try runTogether(works, in: db) }
        } catch is WroteThenFailed {
            return try await writer.write { db in runIsolated(works, in: db) }
        }
    }

    private static func runTogether(_ works: [Work], in db: Database) throws -> [Result<any Sendable, any Error>] {
        var results: [Result<any Sendable, any Error>] = []
        results.reserveCapacity(works.count)
        for work in works {
            let changes = db.totalChangesCount
            do {
                results.append(.success(try work(db)))
            } catch {
                guard db.totalChangesCount == changes else { throw WroteThenFailed() }
                results.append(.failure(error))
            }
        }
        return results
    }

    private static func runIsolated(_ works: [Work], in db: Database) -> [Result<any Sendable, any Error>] {
        works.map { work in
            var value: (any Sendable)?
            do {
                try db.inSavepoint {
                    value = try work(db)
                    return .commit
                }
                return .success(value!)
            } catch {
                return .failure(error)
            }
        }
    }
}
