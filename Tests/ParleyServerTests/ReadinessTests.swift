import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// `GET /ready`: the database answering in time, or a 503 a load balancer acts on.
struct ReadinessTests {
    @Test func aProbeThatHangs_isNotWaitedForPastTheTimeout() async throws {
        let clock = ManualClock()
        let (never, _) = AsyncStream.makeStream(of: Void.self)
        let hanging = Task { await HealthController.outcome(of: { for await _ in never {} }, within: 2, clock: clock) }
        await clock.waitForSleepers(1)
        clock.advance(by: 2)
        #expect(await hanging.value == .timedOut)
        #expect(await HealthController.outcome(of: {}, within: 2, clock: clock) == .answered)
        struct Refused: Error {}
        #expect(await HealthController.outcome(of: { throw Refused() }, within: 2, clock: clock) == .failed("Refused()"))
    }

    @Test(arguments: TestStore.available)
    func aServerWhoseDatabaseAnswers_isReady(_ store: TestStore) async throws {
        try await withServer(on: store) { server in
            let ready = try await server.http.get("/ready", token: nil, as: Health.self)
            #expect(ready.status == "ready")
            #expect(try await server.http.get("/health", token: nil, as: Health.self).status == "ok")
        }
    }
}
