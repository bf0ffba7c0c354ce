import Dispatch

/// Runs code that blocks its thread on the disk or the network (opening or closing a SQLite file,
/// which fsyncs; a raw socket's `recv`) on threads of its own, outside Swift's cooperative pool.
///
/// The whole suite runs in one process, ~300 tests at once, on a cooperative pool as wide as the
/// machine has cores (2 here). A test that blocks a pool thread in `fdatasync` stops every other
/// test's continuations too: beside a neighbour that fsyncs a lot, the store opens of a few hundred
/// starting tests held both threads for seconds, and tests waiting for a frame timed out although
/// the server had queued it (docs/testing.md).
public enum BlockingIO {
    /// Runs `body` with a task executor whose threads may block; async calls inside it that are not
    /// isolated to an actor (a store's `init`, `close()`) run there, not on the cooperative pool.
    public static func run<T, Failure: Error>(
        isolation: isolated (any Actor)? = #isolation, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        try await withTaskExecutorPreference(BlockingIOExecutor.shared, isolation: isolation, operation: body)
    }
}

/// A task executor that runs each job on a serial dispatch queue of its own.
///
/// Not one concurrent queue: on Linux a concurrent queue runs on the same fixed-width root queue as
/// Swift's cooperative pool, so a job that blocks there blocks the pool all the same. A serial queue
/// runs on dispatch's overcommit threads, which grow when their threads block (as GRDB's do).
final class BlockingIOExecutor: TaskExecutor {
    static let shared = BlockingIOExecutor()

    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        DispatchQueue(label: "parley.tests.blocking-io").async { job.runSynchronously(on: self.asUnownedTaskExecutor()) }
    }
}
