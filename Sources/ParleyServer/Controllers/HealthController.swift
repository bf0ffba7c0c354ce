import Foundation
import Hummingbird
import Logging
import ParleyCore

/// `GET /health` and `GET /ready`: open to everyone, for load balancers and `parley`.
///
/// `/health` says the process runs. `/ready` says it can serve: the database answered a read
/// within ``timeout``. A node cut off from PostgreSQL keeps answering `/health` but not `/ready`,
/// so a load balancer stops sending it clients whose requests would hang.
struct HealthController {
    let version: String
    /// A read of the store; it may hang (a partitioned database), so it is raced against the clock.
    let probe: @Sendable () async throws -> Void
    let timeout: TimeInterval
    let clock: any WallClock

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.server.health) { _, _ in
            JSONResponse(Health(status: "ok", version: version))
        }
        router.on(.server.ready) { _, context in
            switch await Self.outcome(of: probe, within: timeout, clock: clock) {
            case .answered:
                return JSONResponse(Health(status: "ready", version: version))
            case .failed(let error):
                context.logger.warning("not ready: the database failed", metadata: ["parley.error": "\(error)"])
                throw APIError.unavailable("the database failed: not ready")
            case .timedOut:
                context.logger.warning("not ready: the database did not answer in time", metadata: ["parley.timeout": "\(timeout)"])
                throw APIError.unavailable("the database did not answer within \(Int(timeout)) s: not ready")
            }
        }
    }

    enum Outcome: Sendable, Equatable {
        case answered
        case failed(String)
        case timedOut
    }

    /// Runs `probe` without waiting for it past `timeout`: a probe stuck on a dead connection is
    /// left to finish on its own (it cannot be cancelled mid-query), and the answer goes out.
    static func outcome(of probe: @escaping @Sendable () async throws -> Void, within timeout: TimeInterval, clock: any WallClock) async -> Outcome {
        let decided = Locked(false)
        return await withCheckedContinuation { (continuation: CheckedContinuation<Outcome, Never>) in
            @Sendable func decide(_ outcome: Outcome) {
                let first = decided.withLock { done in
                    defer { done = true }
                    return !done
                }
                if first { continuation.resume(returning: outcome) }
            }
            let work = Task {
                do {
                    try await probe()
                    decide(.answered)
                } catch {
                    decide(.failed("\(error)"))
                }
            }
            Task {
                try? await clock.sleep(for: timeout)
                decide(.timedOut)
                work.cancel()
            }
        }
    }
}
