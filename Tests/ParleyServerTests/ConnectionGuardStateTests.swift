@testable import ParleyServer
import Testing

/// The connection guard's decisions alone: bytes in, the first answer out, the deadline; no sockets.
struct ConnectionGuardStateTests {
    static let upgradeHead = Array("GET /v1/realtime HTTP/1.1\r\nHost: a\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n\r\n".utf8)

    func read(_ bytes: [UInt8], _ state: inout ConnectionGuardState) -> ConnectionGuardState.ReadAction {
        bytes.withUnsafeBytes { state.read($0) }
    }

    @Test func aHeadNotFinishedByTheDeadline_closes_andNothingMorePasses() {
        var state = ConnectionGuardState()
        #expect(read(Array("GET / HTTP/1.1\r\nHost: a\r\n".utf8), &state) == .forward)
        #expect(state.isAwaitingHead)
        let closed1 = state.deadlinePassed()
        #expect(closed1)
        #expect(read(Array("\r\n".utf8), &state) == .discard)
        let closed2 = state.deadlinePassed()
        #expect(!closed2)
    }

    @Test func aPlainHTTPConnection_isLeftAlone_afterItsFirstAnswer() {
        var state = ConnectionGuardState()
        // A body that would be an unmasked frame, were this a WebSocket: it is not one.
        #expect(read(Array("POST /v1/x HTTP/1.1\r\nContent-Length: 2\r\n\r\n{}".utf8), &state) == .forward)
        #expect(!state.isAwaitingHead)
        let closed3 = state.deadlinePassed()
        #expect(!closed3, "the head was complete")
        #expect(state.isAwaitingFirstAnswer)
        #expect(state.firstAnswer(isSwitchingProtocols: false) == .forwardAndLeave)
        #expect(!state.isAwaitingFirstAnswer)
        #expect(read(RawFrames.frame("x", masked: false), &state) == .forward)
    }

    @Test func afterA101_maskedFramesPass_andAnUnmaskedOneIsRefused() {
        var state = ConnectionGuardState()
        #expect(read(Self.upgradeHead, &state) == .forward)
        #expect(state.firstAnswer(isSwitchingProtocols: true) == .forward)
        #expect(!state.isAwaitingFirstAnswer)
        let masked = RawFrames.frame("hello", masked: true)
        #expect(read(masked, &state) == .forward)
        #expect(read(masked + RawFrames.frame("bad", masked: false), &state) == .refuse(forwarding: masked.count))
        #expect(read(masked, &state) == .discard)
    }

    @Test func framesSentWithTheUpgradeRequest_areCheckedFromTheEndOfItsHead() {
        var masked = ConnectionGuardState()
        // The head and the start of a frame in one read, the rest of the frame in the next.
        let frame = RawFrames.frame("early", masked: true)
        #expect(read(Self.upgradeHead + frame.prefix(3), &masked) == .forward)
        #expect(read(Array(frame.dropFirst(3)), &masked) == .forward)
        #expect(masked.firstAnswer(isSwitchingProtocols: true) == .forward)
        #expect(read(RawFrames.frame("later", masked: false), &masked) == .refuse(forwarding: 0), "still in step after the early frame")

        var unmasked = ConnectionGuardState()
        #expect(read(Self.upgradeHead + RawFrames.frame("early", masked: false), &unmasked) == .forward, "not known yet to be a WebSocket")
        #expect(unmasked.firstAnswer(isSwitchingProtocols: true) == .refuseUpgrade)
        #expect(read(RawFrames.frame("later", masked: true), &unmasked) == .discard)
    }

    @Test func a101BeforeTheGuardSawTheHeadEnd_isRefused() {
        var state = ConnectionGuardState()
        #expect(read(Array("GET /v1/realtime HTTP/1.1\nHost: a\n\n".utf8), &state) == .forward)
        #expect(state.firstAnswer(isSwitchingProtocols: true) == .refuseUpgrade)
    }

    @Test func anAnswerBeforeTheHeadEnded_endsTheWatch() {
        var state = ConnectionGuardState()
        #expect(read(Array("GET / HTTP/1.1\r\nX: \u{0}".utf8), &state) == .forward)
        #expect(state.firstAnswer(isSwitchingProtocols: false) == .forwardAndLeave)
        let closed4 = state.deadlinePassed()
        #expect(!closed4)
    }
}
