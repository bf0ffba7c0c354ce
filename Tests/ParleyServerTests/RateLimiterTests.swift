import Foundation
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// The limiter, the login throttle and the client address, alone, on a manual clock.
@Suite("Rate limits")
struct RateLimiterTests {
    @Test func aBurst_isAllowed_thenTheRateRefills() {
        let clock = ManualClock()
        let limiter = RateLimiter(clock: clock)
        let limit = RateLimit(burst: 3, perMinute: 6)  // one token every 10 s
        #expect((0..<3).map { _ in limiter.take("k", limit: limit) } == [.allowed, .allowed, .allowed])
        #expect(limiter.take("k", limit: limit) == .limited(retryAfter: 10))
        clock.advance(by: 4)
        #expect(limiter.take("k", limit: limit) == .limited(retryAfter: 6), "a refused try takes nothing")
        clock.advance(by: 6)
        #expect(limiter.take("k", limit: limit) == .allowed)
        #expect(limiter.take("k", limit: limit) == .limited(retryAfter: 10))
        clock.advance(by: 3_600)
        #expect((0..<4).map { _ in limiter.take("k", limit: limit) } == [.allowed, .allowed, .allowed, .limited(retryAfter: 10)],
                "a long quiet refills to the burst, not beyond")
    }

    @Test func keys_areCountedApart() {
        let limiter = RateLimiter(clock: ManualClock())
        let limit = RateLimit(burst: 1, perMinute: 1)
        #expect(limiter.take("a", limit: limit) == .allowed)
        #expect(limiter.take("b", limit: limit) == .allowed)
        #expect(limiter.take("a", limit: limit) == .limited(retryAfter: 60))
    }

    @Test func aFloodOfKeys_staysWithinMaxKeys_andRecentKeysKeepTheirCount() {
        let limiter = RateLimiter(clock: ManualClock(), maxKeys: 100)
        let limit = RateLimit(burst: 2, perMinute: 1)
        for index in 0..<1_000 { _ = limiter.take("flood-\(index)", limit: limit) }
        #expect(limiter.keyCount <= 100)
        #expect(limiter.take("flood-999", limit: limit) == .allowed)
        #expect(limiter.take("flood-999", limit: limit) == .limited(retryAfter: 60), "the latest key kept its first take")
    }

    @Test(arguments: [(1, 0.0), (4, 0), (5, 1), (6, 2), (7, 4), (14, 512), (15, 900), (40, 900)])
    func loginWait_growsAfterFreeFailures(_ failures: Int, _ wait: Double) {
        #expect(LoginThrottle(clock: ManualClock()).delay(after: failures) == wait)
    }

    @Test func loginThrottle_waitsAfterFailures_andASuccessClears() {
        let clock = ManualClock()
        let throttle = LoginThrottle(clock: clock)
        for _ in 0..<4 { throttle.failed(["account:ada", "ip:203.0.113.7"]) }
        #expect(throttle.wait(for: ["account:ada"]) == 0, "four typos cost nothing")
        throttle.failed(["account:ada", "ip:203.0.113.7"])
        #expect(throttle.wait(for: ["account:ada", "ip:198.51.100.1"]) == 1)
        throttle.failed(["account:ada"])
        #expect(throttle.wait(for: ["account:ada"]) == 2)
        clock.advance(by: 2)
        #expect(throttle.wait(for: ["account:ada"]) == 0)
        throttle.succeeded(["account:ada"])
        throttle.failed(["account:ada"])
        #expect(throttle.wait(for: ["account:ada"]) == 0, "a success starts the count again")
        #expect(throttle.wait(for: ["ip:203.0.113.7"]) == 0, "the address's wait has passed too")
    }

    @Test func forwardedFor_isBelieved_onlyFromATrustedProxy() throws {
        let proxies = try TrustedProxies(["10.0.0.0/8", "::1"])
        #expect(proxies.client(peer: "203.0.113.7", forwardedFor: "1.2.3.4") == "203.0.113.7", "an untrusted peer's header proves nothing")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: "1.2.3.4") == "1.2.3.4")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: "6.6.6.6, 1.2.3.4, 10.0.0.9") == "1.2.3.4",
                "the right-most hop that is not a proxy; what the client wrote further left is ignored")
        #expect(proxies.client(peer: "::1", forwardedFor: "not an address") == "::1")
        #expect(proxies.client(peer: "10.1.2.3", forwardedFor: nil) == "10.1.2.3")
        #expect(TrustedProxies.none.client(peer: "127.0.0.1", forwardedFor: "1.2.3.4") == "127.0.0.1")
    }

    @Test(arguments: ["10.0.0.0/33", "10.0.0/8", "example.com", "::1/129", ""])
    func trustedProxies_refuseWhatIsNotARange(_ entry: String) {
        #expect(throws: AddressRanges.Invalid.self) { try TrustedProxies([entry]) }
    }

    @Test func ranges_matchByPrefix() throws {
        let proxies = try TrustedProxies(["192.168.0.0/23", "fd00::/8"])
        #expect(proxies.contains("192.168.1.200"))
        #expect(!proxies.contains("192.168.2.1"))
        #expect(proxies.contains("fd12:3456::1"))
        #expect(!proxies.contains("fe80::1"))
        #expect(!proxies.contains("192.168.1.1.1"))
    }
}
