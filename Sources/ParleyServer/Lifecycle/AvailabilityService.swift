import Foundation
import ParleyCore
import ParleyStore

/// Answers "can a chat start now?" for a queue, before the SDK starts one: open, closed until the
/// next opening, or no agent online, with an estimated wait from the queue's recent history.
struct AvailabilityService: Sendable {
    let store: any ParleyStore
    let settings: AppSettings
    let routing: RoutingEngine
    let clock: any WallClock
    var estimator = WaitEstimator()

    /// The report for `queue` of `app` (the app's first queue when nil).
    /// - Throws: 404 when the queue is not the app's, or the app has no queue.
    func report(app: AppID, queue requested: QueueID?) async throws -> (queue: Queue, report: AvailabilityReport) {
        let now = clock.now()
        let queues = try await store.queues(app: app)
        guard let queue = requested.map({ id in queues.first { $0.id == id } }) ?? queues.first else {
            throw APIError.notFound("queue not found")
        }
        let hours = try await settings.hours(queue: queue.id, app: app)
        let (online, waiting) = await routing.availability(of: queue.id)
        let samples = try await store.waitSamples(queue: queue.id, since: now.addingTimeInterval(-estimator.maxSampleAge), limit: estimator.sampleSize)
        let wait = estimator.estimate(samples: samples, position: waiting + 1, now: now)
        return (queue, AvailabilityReport.evaluate(hours: hours, at: now, agentsOnline: online, estimatedWaitSeconds: wait))
    }
}
