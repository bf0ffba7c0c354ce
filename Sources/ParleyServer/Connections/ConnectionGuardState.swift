/// What ``ConnectionGuard`` knows of its connection, and what it does next: a pure state machine
/// (no I/O, no clock) over the raw bytes in, the first bytes out, and the head's deadline.
///
/// A connection goes through these phases:
///
/// 1. **Awaiting its first request head** (``RequestHeadDeadline``): closed when the deadline passes.
/// 2. **Its first request**: the head is complete, the server has not answered yet. A WebSocket
///    upgrade can only happen on a connection's first request (SwiftNIO's upgrade handler looks
///    at no other, and hummingbird-websocket redirects later ones to a new connection), and an
///    upgrade request has no body, so from the end of this head on the client's bytes are its
///    WebSocket stream if the answer is `101`. They are checked from there (``ClientFrameCheck``)
///    while the server decides, because a client may send frames right after its upgrade request:
///    SwiftNIO keeps those and hands them to the WebSocket layer right after writing the `101`,
///    too late to hold back then. If one was unmasked, the `101` is followed by a close and the
///    upgrade is called off before the frames go further.
/// 3. **WebSocket**: every frame is checked; an unmasked one closes the connection with 1002.
/// 4. **Plain HTTP** (the first answer was not a `101`): nothing more to watch.
struct ConnectionGuardState {
    enum Phase {
        case awaitingHead(RequestHeadDeadline)
        case firstRequest(ClientFrameCheck)
        case webSocket(ClientFrameCheck)
        case http
        case closed
    }

    /// What to do with bytes read.
    enum ReadAction: Equatable {
        /// Pass them on, as they are.
        case forward
        /// Pass on the first `forwarding` bytes (whole masked frames), then send a close frame with
        /// 1002 and close the connection.
        case refuse(forwarding: Int)
        /// Drop them: the connection is closing.
        case discard
    }

    /// What to do with the server's first answer.
    enum WriteAction: Equatable {
        /// Pass it on; the guard keeps watching (a WebSocket).
        case forward
        /// Pass it on; the guard has nothing more to do on this connection (plain HTTP).
        case forwardAndLeave
        /// Send it, then a close frame with 1002, close the connection, and fail the write so the
        /// upgrade goes no further: the client's first frames were not all masked, or the head did
        /// not end where this guard counted (the stream could not be checked).
        case refuseUpgrade
    }

    private(set) var phase = Phase.awaitingHead(RequestHeadDeadline())

    /// Whether the first request head's deadline still runs.
    var isAwaitingHead: Bool {
        if case .awaitingHead = phase { true } else { false }
    }

    /// Whether the server's writes still matter (its first answer has not been seen).
    var isAwaitingFirstAnswer: Bool {
        switch phase {
        case .awaitingHead, .firstRequest: true
        case .webSocket, .http, .closed: false
        }
    }

    /// Bytes arrived from the client.
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> ReadAction {
        switch phase {
        case .awaitingHead(var deadline):
            guard let headEnd = deadline.read(bytes) else {
                phase = .awaitingHead(deadline)
                return .forward
            }
            var check = ClientFrameCheck()
            _ = check.scan(UnsafeRawBufferPointer(rebasing: bytes[headEnd...]))
            phase = .firstRequest(check)
            return .forward
        case .firstRequest(var check):
            // Only noted here: these bytes may be a request body, and no answer can come before it.
            _ = check.scan(bytes)
            phase = .firstRequest(check)
            return .forward
        case .webSocket(var check):
            switch check.scan(bytes) {
            case .masked:
                phase = .webSocket(check)
                return .forward
            case .unmasked(let validPrefix):
                phase = .closed
                return .refuse(forwarding: validPrefix)
            }
        case .http:
            return .forward
        case .closed:
            return .discard
        }
    }

    /// The server writes the first bytes of its first answer.
    /// - Parameter isSwitchingProtocols: they are a `101 Switching Protocols` status line.
    mutating func firstAnswer(isSwitchingProtocols: Bool) -> WriteAction {
        switch phase {
        case .awaitingHead:
            guard isSwitchingProtocols else {
                phase = .http
                return .forwardAndLeave
            }
            phase = .closed
            return .refuseUpgrade
        case .firstRequest(let check):
            guard isSwitchingProtocols else {
                phase = .http
                return .forwardAndLeave
            }
            if case .unmasked = check.state {
                phase = .closed
                return .refuseUpgrade
            }
            phase = .webSocket(check)
            return .forward
        case .webSocket, .http, .closed:
            return .forward
        }
    }

    /// The first request head's deadline passed.
    /// - Returns: true when the connection must be closed.
    mutating func deadlinePassed() -> Bool {
        guard case .awaitingHead(var deadline) = phase, deadline.deadlinePassed() else { return false }
        phase = .closed
        return true
    }
}
