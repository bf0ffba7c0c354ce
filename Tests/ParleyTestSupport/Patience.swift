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
}

/// A last-resort limit on a wait that counts only the time the waiting test got to run.
///
/// A wall-clock deadline fails a test that stood still through no fault of what it waits for: with
/// 8 tests on 2 cores, a test that blocks a thread of the cooperative pool (a synchronous stop of a
/// helper process, a sanitizer) can hold every other test's tasks back, and a 20 ms sleep ends
/// seconds late. The time is gone though nothing had a chance to happen, neither the wait nor what
/// it waits for. Here each look counts at most ``longestStep`` of the time since the one before, so
/// a standstill costs a step, not the wait. A test that hangs is still ended by its suite's time limit.
public struct WaitLimit: Sendable {
    /// The most one look counts; waits between looks are kept under it (``nextLook``).
    public static let longestStep: Duration = .seconds(1)
    /// The limit, stretched by ``TestPatience``, for failure messages.
    public let limit: Duration
    private var spent: Duration = .zero
    private var lastLook = ContinuousClock.now

    /// A limit of `limit`, stretched by ``TestPatience``, counted from now.
    public init(_ limit: Duration) {
        self.limit = TestPatience.scaled(limit)
    }

    /// Counts the time since the previous look, at most ``longestStep`` of it.
    /// - Returns: true once the limit is spent.
    public mutating func isSpent() -> Bool {
        let now = ContinuousClock.now
        spent += min(now - lastLook, Self.longestStep)
        lastLook = now
        return spent >= limit
    }

    /// When to look again at the latest, for a wait that sleeps until something changes: the end of
    /// the limit, but no more than one ``longestStep`` after the last look.
    public var nextLook: ContinuousClock.Instant {
        lastLook + min(limit - spent, Self.longestStep)
    }

    /// Sleeps until a limit of `timeout` is spent, for a wait that races what it waits for.
    /// - Throws: `CancellationError` when cancelled (the race was won).
    public static func sleep(through timeout: Duration) async throws {
        var limit = WaitLimit(timeout)
        while !limit.isSpent() {
            try await Task.sleep(until: limit.nextLook, clock: .continuous)
        }
    }
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
    var limit = WaitLimit(timeout)
    while true {
        if try await condition() { return true }
        guard !limit.isSpent() else { return false }
        try await Task.sleep(for: .milliseconds(20))
    }
}
