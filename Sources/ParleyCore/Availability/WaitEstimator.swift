import Foundation

/// Estimates how long a visitor will wait in a queue, from how long recent visitors waited.
///
/// The method, chosen to be robust to the odd visitor who waited an hour overnight:
/// 1. Take the waits (queued → assigned) of the last ``sampleSize`` assignments, newest by
///    assignment time, no older than ``maxSampleAge``; negative durations are dropped.
/// 2. With fewer than ``minimumSamples`` waits, give no estimate (nil): better none than a guess.
/// 3. Sort them and drop the lowest and highest ``trimFraction`` (rounded down), then average the
///    rest: the trimmed mean, a typical wait for one place in the queue.
/// 4. Multiply by the visitor's 1-based queue position, round up to whole seconds, and cap at
///    ``maxEstimateSeconds``.
///
/// Example: waits 10, 20, 30, 40, 1,000 s with a 20 % trim drop 10 and 1,000, leaving a mean of 30 s;
/// a visitor third in line is told 90 s.
public struct WaitEstimator: Hashable, Sendable {
    /// One past wait.
    public struct Sample: Hashable, Sendable {
        public var queuedAt: Date
        public var assignedAt: Date
        public init(queuedAt: Date, assignedAt: Date) {
            self.queuedAt = queuedAt
            self.assignedAt = assignedAt
        }
    }

    /// How many recent waits count. Default 50.
    public var sampleSize = 50
    /// How old a wait may be (by assignment time) to count. Default 24 hours.
    public var maxSampleAge: TimeInterval = 24 * 3_600
    /// Fewer waits than this give no estimate. Default 3.
    public var minimumSamples = 3
    /// The share of waits dropped at each end before averaging, 0 ..< 0.5. Default 0.1.
    public var trimFraction = 0.1
    /// The largest estimate given, in seconds. Default 4 hours.
    public var maxEstimateSeconds = 4 * 3_600

    /// An estimator with the default settings.
    public init() {}

    /// The estimated wait in seconds for a visitor at `position` (1 = next), or nil without enough history.
    public func estimate(samples: [Sample], position: Int, now: Date) -> Int? {
        let recent = samples
            .filter { $0.assignedAt <= now && now.timeIntervalSince($0.assignedAt) <= maxSampleAge }
            .sorted { $0.assignedAt > $1.assignedAt }
            .prefix(sampleSize)
            .map { $0.assignedAt.timeIntervalSince($0.queuedAt) }
            .filter { $0 >= 0 && $0.isFinite }
            .sorted()
        guard recent.count >= max(1, minimumSamples) else { return nil }
        let trim = Int(Double(recent.count) * min(max(trimFraction, 0), 0.49))
        let kept = recent[trim..<(recent.count - trim)]
        let typical = kept.reduce(0, +) / Double(kept.count)
        let estimate = (typical * Double(max(1, position))).rounded(.up)
        return Int(min(estimate, Double(maxEstimateSeconds)))
    }
}
