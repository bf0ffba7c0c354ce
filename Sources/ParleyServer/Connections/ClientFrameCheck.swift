/// Checks that every WebSocket frame a client sends is masked, as RFC 6455 §5.1 requires: a pure
/// state machine over the raw bytes of an upgraded connection, run by ``ConnectionGuard``.
///
/// It reads only frame headers (FIN and opcode, the MASK bit, the 7-, 16- or 64-bit length, the
/// masking key) and skips payloads by count, so a read costs the same however large its frames;
/// frames may be split across reads and several may share one. Everything else about frames
/// (opcodes, sizes, control frames, UTF-8) is the WebSocket layer's to judge.
struct ClientFrameCheck: Equatable {
    enum State: Equatable {
        /// The next byte starts a frame (FIN, RSV, opcode).
        case frameStart
        /// The MASK bit and the 7-bit length are next.
        case maskAndLength
        /// `remaining` bytes of a 16- or 64-bit length are still to come.
        case extendedLength(remaining: Int, length: UInt64)
        /// `remaining` bytes of the masking key are still to come, then `length` bytes of payload.
        case maskingKey(remaining: Int, length: UInt64)
        /// `remaining` bytes of payload are still to come.
        case payload(remaining: UInt64)
        /// A frame came without a mask: nothing more is read.
        case unmasked
    }

    /// What a read holds.
    enum Verdict: Equatable {
        /// Only masked frames (or parts of them).
        case masked
        /// A frame without a mask; the read's first `validPrefix` bytes come before it (0 when
        /// the frame began in an earlier read).
        case unmasked(validPrefix: Int)
    }

    private(set) var state = State.frameStart

    /// Reads the next bytes of the client's stream.
    mutating func scan(_ bytes: UnsafeRawBufferPointer) -> Verdict {
        if case .unmasked = state { return .unmasked(validPrefix: 0) }
        var index = 0
        // Where the frame being read began in this read; 0 when it began in an earlier one.
        var frameStart = 0
        while index < bytes.count {
            switch state {
            case .frameStart:
                frameStart = index
                index += 1
                state = .maskAndLength
            case .maskAndLength:
                let byte = bytes[index]
                index += 1
                guard byte & 0x80 != 0 else {
                    state = .unmasked
                    return .unmasked(validPrefix: frameStart)
                }
                switch byte & 0x7F {
                case 126: state = .extendedLength(remaining: 2, length: 0)
                case 127: state = .extendedLength(remaining: 8, length: 0)
                case let length: state = .maskingKey(remaining: 4, length: UInt64(length))
                }
            case .extendedLength(let remaining, let length):
                // A 64-bit length with its top bit set is invalid; the WebSocket layer refuses it,
                // and the shift here cannot trap.
                let length = length << 8 | UInt64(bytes[index])
                index += 1
                state = remaining == 1 ? .maskingKey(remaining: 4, length: length) : .extendedLength(remaining: remaining - 1, length: length)
            case .maskingKey(let remaining, let length):
                let taken = min(remaining, bytes.count - index)
                index += taken
                if taken < remaining {
                    state = .maskingKey(remaining: remaining - taken, length: length)
                } else {
                    state = length == 0 ? .frameStart : .payload(remaining: length)
                }
            case .payload(let remaining):
                let available = UInt64(bytes.count - index)
                if remaining > available {
                    state = .payload(remaining: remaining - available)
                    index = bytes.count
                } else {
                    index += Int(remaining)
                    state = .frameStart
                }
            case .unmasked:
                return .unmasked(validPrefix: frameStart)
            }
        }
        return .masked
    }
}
