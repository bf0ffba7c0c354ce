import Foundation
import Logging
import ParleyCore
import ParleyStore
import ServiceLifecycle

/// The loop every outbox deliverer runs (decision 0016): wakes on the bell or every poll, claims
/// due rows of its kind with a lease (several nodes share them; PostgreSQL with `SKIP LOCKED`),
/// and keeps up to `concurrency` deliveries in flight. What one delivery does (and records) is
/// the deliverer's.
struct OutboxWorker: Sendable {
    let kind: String
    let store: any ParleyStore
    let bell: OutboxBell
    let clock: any WallClock
    let pollInterval: TimeInterval
    let concurrency: Int
    /// How long a claimed row is held: long enough for one attempt.
    let lease: TimeInterval
    let logger: Logger
    /// Runs before every poll's look (a rule refreshing the apps it concerns).
    var onPoll: @Sendable () async -> Void = {}
    /// One attempt at one row, recorded by the deliverer.
    let deliver: @Sendable (ClaimedOutboxRow) async -> Void

    func run() async {
        let rings = bell.rings()
        await cancelWhenGracefulShutdown {
            await withTaskGroup(of: Void.self) { group in
                group.addTask {
                    while !Task.isCancelled {
                        try? await clock.sleep(for: pollInterval)
                        await onPoll()
                        bell.ring()
                    }
                }
                group.addTask {
                    for await _ in rings {
                        if Task.isCancelled { break }
                        await deliverDue()
                    }
                }
                await group.next()
                group.cancelAll()
            }
        }
    }

    /// Claims and delivers what is due, until nothing is (a delivered row may free its successor).
    /// A pipeline, not rounds: up to `concurrency` deliveries are in flight, and once half of them
    /// are done the next claim refills them, so a slow receiver holds up only its own deliveries,
    /// and a claim still takes several rows at once.
    func deliverDue() async {
        let limit = max(1, concurrency)
        await withTaskGroup(of: Void.self) { group in
            var inFlight = 0
            var mayHaveMore = true
            while !Task.isCancelled {
                if mayHaveMore, inFlight == 0 || limit - inFlight >= (limit + 1) / 2 {
                    let rows: [ClaimedOutboxRow]
                    do {
                        rows = try await store.claimOutbox(kind: kind, now: clock.now(), lease: lease, limit: limit - inFlight)
                    } catch {
                        logger.warning("outbox not readable", metadata: ["parley.outbox": "\(kind)", "error": "\(error)"])
                        rows = []
                    }
                    for row in rows { group.addTask { await deliver(row) } }
                    inFlight += rows.count
                    mayHaveMore = !rows.isEmpty
                }
                guard inFlight > 0 else { return }
                await group.next()
                inFlight -= 1
                mayHaveMore = true
            }
        }
    }
}

/// An attempt's duration in seconds, from a monotonic start.
func secondsSince(_ start: ContinuousClock.Instant) -> TimeInterval {
    let duration = ContinuousClock.now - start
    return Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

extension WebhookAttempt {
    /// A row's recorded attempts as the admins' lists show them (webhook and push deliveries alike), numbered from 1.
    static func numbered(_ attempts: [OutboxAttemptRecord]) -> [WebhookAttempt] {
        attempts.enumerated().map { index, attempt in
            WebhookAttempt(number: index + 1, at: attempt.at, status: attempt.status, response: attempt.response, error: attempt.error,
                           durationMilliseconds: Int((attempt.duration * 1000).rounded()))
        }
    }
}
