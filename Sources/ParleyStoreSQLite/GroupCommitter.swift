import CoreMetrics
import GRDB
import ParleyStore
import Synchronization

/// Runs many independent writes in one SQLite transaction, so they share one fsync.
///
/// Writers hand in a unit of work and wait. While a transaction is being committed, new work
/// gathers; when the commit returns, everything gathered goes into the next transaction. Under no
/// load a write commits alone at once; under load batches grow by themselves, up to `maxBatch`.
/// Each unit runs in its own savepoint, so one unit's error rolls back only that unit. Every
/// waiter is resumed only after the transaction holding its unit is committed, i.e. durable.
final class GroupCommitter: Sendable {
    typealias Work = @Sendable (Database) throws -> any Sendable

    private struct Pending {
        var work: Work
        var continuation: CheckedContinuation<any Sendable, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var isFlushing = false
        var isClosed = false
        var drained: [CheckedContinuation<Void, Never>] = []
        var statistics = GroupCommitStatistics()
    }

    /// Each transaction's size and time, when the store was given a metrics factory.
    struct Metrics: Sendable {
        let batchSize: Recorder
        let transaction: CoreMetrics.Timer
        init(factory: any MetricsFactory) {
            batchSize = Recorder(label: "parley_commit_batch_size", dimensions: [], aggregate: true, factory: factory)
            transaction = CoreMetrics.Timer(label: "parley_commit_transaction_seconds", dimensions: [], factory: factory)
        }
    }

    private let writer: DatabasePool
    private let maxBatch: Int
    private let metrics: Metrics?
    /// Called after each transaction commits (the WAL checkpointer counts them).
    private let onCommit: @Sendable () -> Void
    private let state = Mutex(State())

    init(writer: DatabasePool, maxBatch: Int = 512, metrics: Metrics? = nil, onCommit: @escaping @Sendable () -> Void = {}) {
        self.writer = writer
        self.maxBatch = maxBatch
        self.metrics = metrics
        self.onCommit = onCommit
    }

    /// Refuses new work and waits until everything handed in before is committed.
    func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                state.isClosed = true
                if state.isFlushing {
                    state.drained.append(continuation)
                    return false
                }
                return true
            }
            if idle { continuation.resume() }
        }
    }

    /// What the committer has done since the store opened.
    var statistics: GroupCommitStatistics { state.withLock { $0.statistics } }

    /// Runs `work` in the next group transaction and returns its value once that is durable.
    func write<T: Sendable>(_ work: @escaping @Sendable (Database) throws -> T) async throws -> T {
        let value = try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<any Sendable, any Error>) in
            let startFlusher: Bool? = state.withLock { state in
                if state.isClosed { return nil }
                state.pending.append(Pending(work: { try work($0) }, continuation: continuation))
                if state.isFlushing { return false }
                state.isFlushing = true
                return true
            }
            guard let startFlusher else {
                continuation.resume(throwing: StoreError.invalidState("the store is closed"))
                return
            }
            if startFlusher {
                Task { await self.flush() }
            }
        }
        return value as! T  // the closure above returned a T, boxed; the cast cannot fail
    }

    private func flush() async {
        while true {
            let (batch, drained): ([Pending], [CheckedContinuation<Void, Never>]) = state.withLock { state in
                let batch = Array(state.pending.prefix(maxBatch))
                state.pending.removeFirst(batch.count)
                guard batch.isEmpty else { return (batch, []) }
                state.isFlushing = false
                defer { state.drained = [] }
                return ([], state.drained)
            }
            if batch.isEmpty {
                for waiter in drained { waiter.resume() }
                return
            }
            state.withLock { state in
                state.statistics.units += batch.count
                state.statistics.transactions += 1
                state.statistics.largestBatch = max(state.statistics.largestBatch, batch.count)
            }
            let works = batch.map(\.work)
            do {
                let start = ContinuousClock.now
                let results = try await Self.run(works, on: writer)
                onCommit()
                if let metrics {
                    let (seconds, attoseconds) = (ContinuousClock.now - start).components
                    metrics.transaction.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                    metrics.batchSize.record(batch.count)
                }
                for (pending, result) in zip(batch, results) {
                    pending.continuation.resume(with: result)
                }
            } catch {
                // The transaction itself failed (disk full, I/O error): nothing in it is durable.
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
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

/// Counters of a group committer: how many units of work shared how many transactions (fsyncs).
public struct GroupCommitStatistics: Sendable, Hashable {
    /// Changes committed (or attempted).
    public var units = 0
    /// Transactions run, each one fsync.
    public var transactions = 0
    /// The most changes one transaction carried.
    public var largestBatch = 0
}
