/// WebSocket frames as bytes, for tests that write the wire themselves (RFC 6455 §5.2).
enum RawFrames {
    static let text: UInt8 = 0x1
    static let close: UInt8 = 0x8
    static let ping: UInt8 = 0x9

    /// One final frame; `masked` with a fixed key (any key will do), its length in the 7-, 16- or
    /// 64-bit form its size needs.
    static func frame(opcode: UInt8 = text, _ payload: [UInt8], masked: Bool) -> [UInt8] {
        var bytes: [UInt8] = [0x80 | opcode]
        let maskBit: UInt8 = masked ? 0x80 : 0
        switch payload.count {
        case ..<126:
            bytes.append(maskBit | UInt8(payload.count))
        case ..<65_536:
            bytes.append(maskBit | 126)
            bytes += [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)]
        default:
            bytes.append(maskBit | 127)
            bytes += (0..<8).reversed().map { UInt8((UInt64(payload.count) >> (8 * UInt64($0))) & 0xFF) }
        }
        guard masked else { return bytes + payload }
        let key: [UInt8] = [0x37, 0xFA, 0x21, 0x3D]
        return bytes + key + payload.enumerated().map { $0.element ^ key[$0.offset % 4] }
    }

    static func frame(opcode: UInt8 = text, _ text: String, masked: Bool) -> [UInt8] {
        frame(opcode: opcode, Array(text.utf8), masked: masked)
    }
}

extension RawFrames {
    /// A frame the server sent (never masked).
    struct ServerFrame: Equatable {
        var opcode: UInt8
        var payload: [UInt8]

        var text: String { String(decoding: payload, as: UTF8.self) }
        /// A close frame's status code.
        var closeCode: Int? { opcode == RawFrames.close && payload.count >= 2 ? Int(payload[0]) << 8 | Int(payload[1]) : nil }
    }

    /// The server's frames in `bytes`, in order (a frame cut off at the end is left out).
    static func serverFrames(_ bytes: [UInt8]) -> [ServerFrame] {
        var frames: [ServerFrame] = []
        var index = 0
        while index + 2 <= bytes.count {
            var length = Int(bytes[index + 1] & 0x7F)
            var start = index + 2
            if length == 126, start + 2 <= bytes.count {
                length = Int(bytes[start]) << 8 | Int(bytes[start + 1])
                start += 2
            } else if length == 127, start + 8 <= bytes.count {
                length = bytes[start..<start + 8].reduce(0) { $0 << 8 | Int($1) }
                start += 8
            }
            guard start + length <= bytes.count else { break }
            frames.append(ServerFrame(opcode: bytes[index] & 0x0F, payload: Array(bytes[start..<start + length])))
            index = start + length
        }
        return frames
    }
}
