import Foundation
import Logging
import ParleyCore
@testable import ParleyKit
import ParleyTestSupport
import Testing

/// The link waits its reconnect delays on the configured clock: with a manual one, a test sees each
/// attempt happen exactly when time is moved past its delay, and never before.
struct RealtimeLinkClockTests {
    /// A transport whose every connect is refused, counting the attempts.
    final class RefusingTransport: RealtimeTransport {
        let attempts = Locked(0)
        func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel {
            attempts.withLock { $0 += 1 }
            throw ParleyError.network("connection refused")
        }
    }

    @Test func reconnectDelays_areWaitedOnTheConfiguredClock() async throws {
        let clock = ManualClock()
        let transport = RefusingTransport()
        let policy = ReconnectPolicy(initialDelay: .seconds(10), multiplier: 2, maximumDelay: .seconds(60), jitter: 0)
        let link = RealtimeLink(
            transport: transport, url: try #require(URL(string: "ws://127.0.0.1:9/v1/realtime")), policy: policy,
            logger: Logger(label: "test"),
            handlers: .init(token: { _ in "token" }, opened: { _ in }, frame: { _ in }, lost: {}),
            clock: clock, random: { 0 })
        await link.start()

        await clock.waitForSleepers(1)
        #expect(transport.attempts.withLock { $0 } == 1)
        clock.advance(by: 9.5)
        #expect(clock.sleeperCount == 1, "10 s not yet over: no second attempt")
        #expect(transport.attempts.withLock { $0 } == 1)
        clock.advance(by: 0.5)

        // The second attempt fails too; the next delay doubles.
        await clock.waitForSleepers(1)
        #expect(transport.attempts.withLock { $0 } == 2)
        clock.advance(by: 19)
        #expect(clock.sleeperCount == 1 && transport.attempts.withLock { $0 } == 2)
        clock.advance(by: 1)
        await clock.waitForSleepers(1)
        #expect(transport.attempts.withLock { $0 } == 3)

        await link.stop()
    }
}
