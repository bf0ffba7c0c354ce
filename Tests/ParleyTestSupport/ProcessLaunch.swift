import Foundation
import ParleyCore

extension Process {
    private static let launches = Locked(())

    /// `run()`, one launch at a time across the test process: Foundation's `Process.run()` on Linux
    /// copies the environment and arguments while it spawns, and two launches at once crashed the
    /// test runner inside it (a bad pointer in `memcpy`). Tests start many helpers in parallel.
    public func runOneAtATime() throws {
        try Self.launches.withLock { _ in try run() }
    }
}
