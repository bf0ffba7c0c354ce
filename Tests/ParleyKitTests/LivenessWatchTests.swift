import Foundation
import Logging
import ParleyCore
@testable import ParleyKit
import ParleyTestSupport
import Testing

/// A socket that stopped reaching the server is noticed from the answers it does not get.
struct LivenessWatchTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func anAnswerOverdue_isDead_anythingHeardClearsIt_aQuietSocketIsProbed() {
        var watch = LivenessWatch(answerTimeout: 10, idleProbe: 25, openedAt: start)
        #expect(watch.check(at: start.addingTimeInterval(24)) == .fine)
        #expect(watch.check(at: start.addingTimeInterval(25)) == .probe, "quiet for 25 s: ask")
        watch.sent(answered: false, at: start.addingTimeInterval(1))
        #expect(watch.answerDue == nil, "typing and read are not answered")
        watch.sent(answered: true, at: start.addingTimeInterval(2))
        watch.sent(answered: true, at: start.addingTimeInterval(5))
        #expect(watch.answerDue == start.addingTimeInterval(12), "the oldest unanswered frame sets the deadline")
        #expect(watch.check(at: start.addingTimeInterval(11.9)) == .fine)
        #expect(watch.check(at: start.addingTimeInterval(12)) == .dead)
        watch.heard(at: start.addingTimeInterval(11))
        #expect(watch.check(at: start.addingTimeInterval(12)) == .fine && watch.answerDue == nil)
        #expect(watch.check(at: start.addingTimeInterval(36)) == .probe)
        #expect(watch.checkInterval == 5)
    }

    /// A transport whose sockets say `ready`, then never answer anything (a black hole).
    final class SilentTransport: RealtimeTransport {
        final class Channel: RealtimeChannel {
            let incoming: AsyncThrowingStream<String, any Error>
            let continuation: AsyncThrowingStream<String, any Error>.Continuation
            let sent: AsyncStream<String>.Continuation
            init(sent: AsyncStream<String>.Continuation) {
                self.sent = sent
                (incoming, continuation) = AsyncThrowingStream.makeStream(of: String.self)
                continuation.yield(#"{"type":"ready","epoch":"e1","heartbeat_seconds":30,"participant":{"id":"vis_01J00000000000000000000000","role":"visitor"}}"#)
            }
            func send(_ text: String) async throws { sent.yield(text) }
            func close() async { continuation.finish() }
        }
        let channels = Locked([Channel]())
        let (sent, sending) = AsyncStream.makeStream(of: String.self)
        func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel {
            let channel = Channel(sent: sending)
            channels.withLock { $0.append(channel) }
            return channel
        }
    }

    @Test func theLink_reconnectsWhenASendGoesUnanswered_andPingsAQuietSocket() async throws {
        let clock = ManualClock()
        let transport = SilentTransport()
        let policy = ReconnectPolicy(initialDelay: .seconds(1), multiplier: 2, maximumDelay: .seconds(30), jitter: 0)
        let (openings, opened) = AsyncStream.makeStream(of: String.self)
        let link = RealtimeLink(
            transport: transport, url: try #require(URL(string: "ws://127.0.0.1:9/v1/realtime")), policy: policy, logger: Logger(label: "test"),
            handlers: .init(token: { _ in "token" }, opened: { opened.yield($0) }, frame: { _ in }, lost: {}), clock: clock, random: { 0 })
        var events = openings.makeAsyncIterator()
        await link.start()
        _ = await events.next()
        await clock.waitForSleepers(1)   // the watch

        // Quiet for 25 s: the link asks with a ping.
        clock.advance(by: 25)
        var sent = transport.sent.makeAsyncIterator()
        #expect(await sent.next()?.contains(#""type":"ping""#) == true)

        // The ping is never answered: 10 s later the socket is dead, and the link connects again.
        await clock.waitForSleepers(1)
        clock.advance(by: 10)
        await clock.waitForSleepers(1)   // the reconnect delay
        #expect(transport.channels.withLock { $0.count } == 1)
        clock.advance(by: 1)
        _ = await events.next()
        #expect(transport.channels.withLock { $0.count } == 2, "a new socket after the unanswered ping")
        await link.stop()
    }
}
