import Foundation
import ParleyCore

/// A growing wait after wrong passwords, per account and per address: the first few failures cost
/// nothing (typos), then each one doubles the wait before the next try is even checked.
///
/// | failures in a row | wait before the next try |
/// |---|---|
/// | 1–4 | none |
/// | 5 | 1 s |
/// | 6 | 2 s |
/// | n ≥ 5 | 2^(n − 5) s, at most 15 min |
///
/// A success clears the key. A key not seen for an hour is forgotten.
public final class LoginThrottle: Sendable {
    private struct Record {
        var failures: Int
        var lastFailure: Date
    }

    /// Failures that cost nothing. Default 4.
    public let freeFailures: Int
    /// The longest wait. Default 15 minutes.
    public let maximumWait: TimeInterval
    private let clock: any WallClock
    private let records = Locked<[String: Record]>([:])
    private static let forgetAfter: TimeInterval = 3_600
    private static let maxKeys = 100_000

    public init(clock: any WallClock, freeFailures: Int = 4, maximumWait: TimeInterval = 900) {
        self.clock = clock
        self.freeFailures = freeFailures
        self.maximumWait = maximumWait
    }

    /// Seconds to wait before `keys` may try again (0: now), the longest among them.
    public func wait(for keys: [String]) -> Int {
        let now = clock.now()
        return records.withLock { records in
            keys.compactMap { records[$0] }.map { record in
                let remaining = record.lastFailure.addingTimeInterval(self.delay(after: record.failures)).timeIntervalSince(now)
                return remaining > 0 ? Int(remaining.rounded(.up)) : 0
            }.max() ?? 0
        }
    }

    /// Records a wrong password for each key.
    public func failed(_ keys: [String]) {
        let now = clock.now()
        records.withLock { records in
            if records.count >= Self.maxKeys {
                records = records.filter { now.timeIntervalSince($0.value.lastFailure) < Self.forgetAfter }
            }
            for key in keys {
                var record = records[key] ?? Record(failures: 0, lastFailure: now)
                if now.timeIntervalSince(record.lastFailure) >= Self.forgetAfter { record.failures = 0 }
                record.failures += 1
                record.lastFailure = now
                records[key] = record
            }
        }
    }

    /// Clears the keys (the right password).
    public func succeeded(_ keys: [String]) {
        records.withLock { records in for key in keys { records[key] = nil } }
    }

    /// The wait after `failures` failures in a row.
    func delay(after failures: Int) -> TimeInterval {
        guard failures > freeFailures else { return 0 }
        return min(maximumWait, pow(2, Double(min(failures - freeFailures - 1, 30))))
    }
}
