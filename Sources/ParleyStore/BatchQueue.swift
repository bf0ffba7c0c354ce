import ParleyCore
import CoreMetrics

/// Gathers units of work handed in concurrently and runs them in batches, at most `concurrency`
/// batches at a time: the queue behind both stores' group commits.
///
/// Callers hand in a unit and wait. While batches run, new units gather; when one returns,
/// everything gathered (up to `maxBatch`) is the next batch. Under no load a unit runs alone at
/// once; under load batches grow by themselves. Each caller is resumed with its own unit's result,
/// only after the batch that held it has returned (for the stores: after its transaction is durable).
///
/// SQLite has one writer, so it runs one batch at a time. PostgreSQL runs a few: while one batch
/// waits for its `COMMIT`, the next reads and writes on another connection.
public final class BatchQueue<Unit: Sendable, Output: Sendable>: Sendable {
    /// Runs one batch: a result per unit, in order; a thrown error fails every unit of the batch.
    public typealias Runner = @Sendable ([Unit]) async throws -> [Result<Output, any Error>]

    private struct Pending {
        var unit: Unit
        var continuation: CheckedContinuation<Output, any Error>
    }

    private struct State {
        var pending: [Pending] = []
        var running = 0
        var isClosed = false
        var drained: [CheckedContinuation<Void, Never>] = []
        var statistics = GroupCommitStatistics()
    }

    /// Each batch's size and time, when the store was given a metrics factory.
    public struct Metrics: Sendable {
        let batchSize: Recorder
        let transaction: CoreMetrics.Timer
        /// `parley_commit_batch_size` (units per batch) and `parley_commit_transaction_seconds`.
        public init(factory: any MetricsFactory) {
            batchSize = Recorder(label: "parley_commit_batch_size", dimensions: [], aggregate: true, factory: factory)
            transaction = CoreMetrics.Timer(label: "parley_commit_transaction_seconds", dimensions: [], factory: factory)
        }
    }

    private let maxBatch: Int
    private let concurrency: Int
    private let metrics: Metrics?
    private let runner: Runner
    private let state = Locked(State())

    /// - Parameters:
    ///   - maxBatch: the most units one batch takes.
    ///   - concurrency: the most batches running at once. Default 1.
    ///   - metrics: where batch sizes and times go; nil for none.
    ///   - run: runs a batch.
    public init(maxBatch: Int, concurrency: Int = 1, metrics: Metrics? = nil, run: @escaping Runner) {
        precondition(maxBatch >= 1 && concurrency >= 1, "a batch holds at least one unit, and one batch runs")
        self.maxBatch = maxBatch
        self.concurrency = concurrency
        self.metrics = metrics
        self.runner = run
    }

    /// What the queue has done since it was made.
    public var statistics: GroupCommitStatistics { state.withLock { $0.statistics } }

    /// Runs `unit` in the next batch and returns its result once that batch has returned.
    /// - Throws: the unit's error, the batch's error, or ``StoreError/invalidState(_:)`` once closed.
    public func submit(_ unit: Unit) async throws -> Output {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Output, any Error>) in
            let startRunner: Bool? = state.withLock { state in
                if state.isClosed { return nil }
                state.pending.append(Pending(unit: unit, continuation: continuation))
                if state.running >= concurrency { return false }
                state.running += 1
                return true
            }
            guard let startRunner else {
                continuation.resume(throwing: StoreError.invalidState("the store is closed"))
                return
            }
            if startRunner {
                Task { await self.drain() }
            }
        }
    }

    /// Refuses new units and waits until every unit handed in before has run.
    public func close() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state in
                state.isClosed = true
                if state.running > 0 {
                    state.drained.append(continuation)
                    return false
                }
                return true
            }
            if idle { continuation.resume() }
        }
    }

    private func drain() async {
        while true {
            let (batch, drained): ([Pending], [CheckedContinuation<Void, Never>]) = state.withLock { state in
                let batch = Array(state.pending.prefix(maxBatch))
                state.pending.removeFirst(batch.count)
                guard batch.isEmpty else {
                    state.statistics.units += batch.count
                    state.statistics.transactions += 1
                    state.statistics.largestBatch = max(state.statistics.largestBatch, batch.count)
                    return (batch, [])
                }
                state.running -= 1
                guard state.running == 0 else { return ([], []) }
                defer { state.drained = [] }
                return ([], state.drained)
            }
            if batch.isEmpty {
                for waiter in drained { waiter.resume() }
                return
            }
            do {
                let start = ContinuousClock.now
                let results = try await runner(batch.map(\.unit))
                precondition(results.count == batch.count, "one result per unit")
                if let metrics {
                    let (seconds, attoseconds) = (ContinuousClock.now - start).components
                    metrics.transaction.recordNanoseconds(seconds * 1_000_000_000 + attoseconds / 1_000_000_000)
                    metrics.batchSize.record(batch.count)
                }
                for (pending, result) in zip(batch, results) {
                    pending.continuation.resume(with: result)
                }
            } catch {
                // The batch itself failed (disk full, I/O error, a lost connection): nothing in it is durable.
                for pending in batch { pending.continuation.resume(throwing: error) }
            }
        }
    }
}

/// Counters of a group commit: how many units of work shared how many transactions (fsyncs).
public struct GroupCommitStatistics: Sendable, Hashable {
    /// Changes committed (or attempted).
    public var units = 0
    /// Transactions run, each one fsync.
    public var transactions = 0
    /// The most changes one transaction carried.
    public var largestBatch = 0

    public init() {}
}
