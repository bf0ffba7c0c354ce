/// Whether a connection finished its first HTTP request head before its deadline: a pure state
/// machine over the connection's raw bytes (no I/O, no clock), run by ``ConnectionGuard``.
///
/// The head ends at the first CR LF CR LF after the request line has begun. Empty lines before the
/// request line are skipped, as the HTTP parser (llhttp) skips them: taken for the end of the head,
/// they would put that end where the parser does not, and the guard reads what follows the head as
/// the start of a WebSocket stream.
struct RequestHeadDeadline: Equatable {
    enum State: Equatable {
        /// Nothing but empty lines yet.
        case beforeRequestLine
        /// In the head; the last `matched` bytes read are the start of CR LF CR LF.
        case inHead(matched: Int)
        /// The head is complete: the deadline no longer matters.
        case met
        /// The deadline passed first: the connection is to be closed.
        case missed
    }

    private(set) var state = State.beforeRequestLine

    private static let carriageReturn: UInt8 = 13
    private static let lineFeed: UInt8 = 10

    /// Reads the next bytes of the connection.
    /// - Returns: the offset in `bytes` just past the head's last byte when the head ends in them
    ///   (the bytes from there on are the request's body, the next request, or a WebSocket stream);
    ///   nil otherwise.
    mutating func read(_ bytes: UnsafeRawBufferPointer) -> Int? {
        var index = 0
        if case .beforeRequestLine = state {
            while index < bytes.count, bytes[index] == Self.carriageReturn || bytes[index] == Self.lineFeed { index += 1 }
            guard index < bytes.count else { return nil }
            state = .inHead(matched: 0)
        }
        guard case .inHead(var matched) = state else { return nil }
        // CR LF CR LF: after a mismatch, only a CR can start the terminator again.
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            let expected = matched % 2 == 0 ? Self.carriageReturn : Self.lineFeed
            if byte == expected {
                matched += 1
                if matched == 4 {
                    state = .met
                    return index
                }
            } else {
                matched = byte == Self.carriageReturn ? 1 : 0
            }
        }
        state = .inHead(matched: matched)
        return nil
    }

    /// The deadline passed.
    /// - Returns: true when the head was not complete, and the connection must be closed.
    mutating func deadlinePassed() -> Bool {
        switch state {
        case .beforeRequestLine, .inHead:
            state = .missed
            return true
        case .met, .missed:
            return false
        }
    }
}
