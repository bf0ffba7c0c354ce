import Foundation
import ParleyCore

/// How often something may happen: `burst` at once, then `perMinute` spread over each minute.
public struct RateLimit: Sendable, Hashable {
    /// The most that may happen at once, after a quiet while.
    public var burst: Int
    /// The sustained rate, per minute.
    public var perMinute: Double

    public init(burst: Int, perMinute: Double) {
        precondition(burst >= 1 && perMinute > 0, "a limit lets something through")
        self.burst = burst
        self.perMinute = perMinute
    }
}

/// Token buckets by key ("session/ip/203.0.113.7", "send/visitor/vis_…"): each key holds up to
/// `burst` tokens and gains `perMinute / 60` a second; a request takes one or is told when the next
/// one is there.
///
/// Memory is bounded: at most `maxKeys` buckets. A full bucket is the same as no bucket, so those
/// are dropped first when room is needed; if every bucket is in use, the one least recently
/// touched goes (a flood of new keys then costs its keys their history, never the server its memory).
public final class RateLimiter: Sendable {
    /// What a request is told.
    public enum Decision: Sendable, Hashable {
        case allowed
        /// Refused; the next token arrives after this many seconds (at least 1, for `Retry-After`).
        case limited(retryAfter: Int)
    }

    private struct Bucket {
        var tokens: Double
        var updated: Date
    }

    private let clock: any WallClock
    private let maxKeys: Int
    private let buckets = Locked<[String: Bucket]>([:])

    /// - Parameters:
    ///   - clock: the time buckets refill by.
    ///   - maxKeys: the most keys held at once. Default 100,000 (≈ 10 MB).
    public init(clock: any WallClock, maxKeys: Int = 100_000) {
        self.clock = clock
        self.maxKeys = maxKeys
    }

    /// Takes a token from `key`'s bucket under `limit`.
    public func take(_ key: String, limit: RateLimit) -> Decision {
        let now = clock.now()
        return buckets.withLock { buckets in
            var bucket = buckets[key] ?? Bucket(tokens: Double(limit.burst), updated: now)
            let perSecond = limit.perMinute / 60
            bucket.tokens = min(Double(limit.burst), bucket.tokens + max(0, now.timeIntervalSince(bucket.updated)) * perSecond)
            bucket.updated = now
            let decision: Decision
            if bucket.tokens >= 1 {
                bucket.tokens -= 1
                decision = .allowed
            } else {
                decision = .limited(retryAfter: max(1, Int(((1 - bucket.tokens) / perSecond).rounded(.up))))
            }
            if buckets[key] == nil && buckets.count >= maxKeys { Self.makeRoom(in: &buckets, now: now, limit: limit) }
            buckets[key] = bucket
            return decision
        }
    }

    /// How many keys are held (for tests and metrics).
    public var keyCount: Int { buckets.withLock { $0.count } }

    private static func makeRoom(in buckets: inout [String: Bucket], now: Date, limit: RateLimit) {
        // Buckets that would be full by now carry no information: drop them all.
        let perSecond = limit.perMinute / 60
        buckets = buckets.filter { $0.value.tokens + now.timeIntervalSince($0.value.updated) * perSecond < Double(limit.burst) }
        if let oldest = buckets.min(by: { $0.value.updated < $1.value.updated })?.key, buckets.count >= 1 {
            buckets[oldest] = nil
        }
    }
}
