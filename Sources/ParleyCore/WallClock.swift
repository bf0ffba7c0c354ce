import Foundation

/// Wall-clock time, passed in rather than read from `Date()`: stored timestamps, deadlines (an
/// agent's offline grace, token expiry, retries) and backoff all come from one, so a test drives
/// them with a manual clock instead of sleeping.
public protocol WallClock: Sendable {
    /// The current time.
    func now() -> Date
    /// Returns at `deadline` (at once when it has passed).
    /// - Throws: `CancellationError` when the task is cancelled first.
    func sleep(until deadline: Date) async throws
}

extension WallClock {
    /// Returns after `seconds` (at once for zero or less).
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(for seconds: TimeInterval) async throws {
        try await sleep(until: now().addingTimeInterval(seconds))
    }
}

/// The system's clock: `Date()` and `Task.sleep`.
public struct SystemClock: WallClock {
    public init() {}
    public func now() -> Date { Date() }
    public func sleep(until deadline: Date) async throws {
        let seconds = deadline.timeIntervalSinceNow
        if seconds > 0 { try await Task.sleep(for: .seconds(seconds)) } else { try Task.checkCancellation() }
    }
}
