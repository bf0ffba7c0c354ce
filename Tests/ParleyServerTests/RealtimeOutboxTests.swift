@testable import ParleyServer
import Testing

/// The socket queue's state machine alone: items in, actions out, no sockets.
struct RealtimeOutboxTests {
    typealias Outbox = RealtimeOutbox<Int>

    func sent(_ action: Outbox.TakeAction) -> [Int]? {
        if case .send(let items) = action { items } else { nil }
    }

    func isIdle(_ action: Outbox.TakeAction) -> Bool {
        if case .idle = action { true } else { false }
    }

    func finished(_ action: Outbox.TakeAction) -> String?? {
        if case .finished(let reason) = action { .some(reason) } else { nil }
    }

    @Test func firstItem_startsOneDrain_whichTakesEverythingQueued() {
        var outbox = Outbox(limit: 4)
        #expect(outbox.enqueue(1) == .startDrain)
        #expect(outbox.enqueue(2) == .none)
        #expect(outbox.enqueue(3) == .none)
        #expect(sent(outbox.take()) == [1, 2, 3])
        #expect(outbox.isDraining)
        #expect(outbox.enqueue(4) == .none)
        #expect(sent(outbox.take()) == [4])
        #expect(isIdle(outbox.take()))
        #expect(!outbox.isDraining)
        #expect(outbox.enqueue(5) == .startDrain)
    }

    @Test func fullQueue_closesTheChannelOnce_andTakesNothingMore() {
        var outbox = Outbox(limit: 2)
        #expect(outbox.enqueue(1) == .startDrain)
        #expect(outbox.enqueue(2) == .none)
        #expect(outbox.enqueue(3) == .closeChannel)
        #expect(outbox.didOverflow)
        #expect(outbox.enqueue(4) == .none)
        #expect(isIdle(outbox.take()))
        #expect(!outbox.isDraining)
    }

    @Test func finish_whileDraining_sendsWhatIsQueued_thenFinishes() {
        var outbox = Outbox(limit: 4)
        _ = outbox.enqueue(1)
        outbox.finish()
        #expect(outbox.enqueue(2) == .none)
        #expect(outbox.isDraining)
        #expect(sent(outbox.take()) == [1])
        #expect(finished(outbox.take()) == .some(nil))
        #expect(outbox.phase == .closed)
        #expect(!outbox.isDraining)
    }

    @Test func finish_whenIdle_endsAtOnce() {
        var outbox = Outbox(limit: 4)
        outbox.finish()
        #expect(outbox.phase == .closed)
        #expect(!outbox.isDraining)
        #expect(outbox.enqueue(1) == .none)
    }

    @Test func revoke_sendsTheNoticeLast_thenFinishesWithTheReason() {
        var outbox = Outbox(limit: 2)
        #expect(outbox.revoke(reason: "logged out", notice: 99) == .startDrain)
        #expect(outbox.revoke(reason: "again", notice: 98) == .none)
        #expect(outbox.enqueue(1) == .none)
        #expect(sent(outbox.take()) == [99])
        #expect(finished(outbox.take()) == .some("logged out"))
        #expect(outbox.revocationReason == "logged out")
    }

    @Test func revoke_whileDraining_queuesBehindWhatIsThere_evenWhenFull() {
        var outbox = Outbox(limit: 1)
        _ = outbox.enqueue(1)
        #expect(outbox.revoke(reason: "token expired", notice: 99) == .none)
        #expect(sent(outbox.take()) == [1, 99])
        #expect(finished(outbox.take()) == .some("token expired"))
    }

    @Test func abort_dropsTheQueue() {
        var outbox = Outbox(limit: 4)
        _ = outbox.enqueue(1)
        outbox.abort()
        #expect(isIdle(outbox.take()))
        #expect(outbox.phase == .closed)
        #expect(outbox.enqueue(2) == .none)
    }
}
