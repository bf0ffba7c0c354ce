import Foundation

/// How long tests wait, at most, for what they expect before they give up and say what they were
/// waiting for.
///
/// Every such wait is a last resort against something that never comes: a passing run ends it on
/// the event or the state it waits for, never near the limit. Slow runs stretch the limits instead
/// of failing for time: under ThreadSanitizer every memory access is checked and 8 tests share the
/// machine's cores, so a step of milliseconds can take seconds; `scripts/tsan.sh` sets
/// `PARLEY_TEST_PATIENCE`. A hung test is still ended by its suite's time limit.
public enum TestPatience {
    /// The multiplier, from `PARLEY_TEST_PATIENCE` (a whole number, at least 1); 1 when unset.
    public static let factor: Int = {
        guard let text = ProcessInfo.processInfo.environment["PARLEY_TEST_PATIENCE"], let value = Int(text), value >= 1 else { return 1 }
        return value
    }()

    /// `limit`, stretched by ``factor``.
    public static func scaled(_ limit: Duration) -> Duration { limit * factor }

    /// `seconds`, stretched by ``factor``.
    public static func scaled(seconds: TimeInterval) -> TimeInterval { seconds * Double(factor) }
}

/// Polls `condition` (for state that has no event of its own) every 20 ms until it holds.
/// - Parameters:
///   - timeout: the last resort, stretched by ``TestPatience``.
///   - condition: what must come to hold.
/// - Throws: ``TestFailure`` when it still does not hold after the timeout; what `condition` throws.
public func waitUntil(timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async throws {
    guard try await !eventually(timeout: timeout, condition) else { return }
    throw TestFailure("condition not met within \(TestPatience.scaled(timeout))")
}

/// Polls `condition` every 20 ms until it holds or the timeout passes, for checks that report the
/// outcome themselves (`#expect(try await eventually { … })`).
/// - Parameters:
///   - timeout: the last resort, stretched by ``TestPatience``.
///   - condition: what must come to hold.
/// - Returns: whether it held.
/// - Throws: what `condition` throws; `CancellationError` when the test is cancelled (its time limit).
public func eventually(timeout: Duration = .seconds(15), _ condition: () async throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + TestPatience.scaled(timeout)
    while true {
        if try await condition() { return true }
        guard ContinuousClock.now < deadline else { return false }
        try await Task.sleep(for: .milliseconds(20))
    }
}
