/// A reader for the one shape of JSON the realtime hot path receives most: a single object whose
/// values are strings, `true`, `false` or `null`. It is strict and small: anything else (a number,
/// a nested value, a repeated key, a malformed escape, trailing text) is "not flat", and the caller
/// falls back to `JSONDecoder`, which accepts or refuses it with its usual message. So what this
/// reader accepts, it reads exactly as `JSONDecoder` would.
enum FlatJSON {
    enum Value: Equatable {
        case string(String)
        case bool(Bool)
        case null
    }

    /// The object's members, or nil when the text is not a flat object.
    static func object(_ text: String) -> [String: Value]? {
        var text = text
        return text.withUTF8 { bytes in
            var reader = Reader(bytes: bytes)
            return reader.object()
        }
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        var index = 0

        mutating func object() -> [String: Value]? {
            skipSpace()
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [String: Value] = [:]
            skipSpace()
            if take(UInt8(ascii: "}")) { return atEnd() ? members : nil }
            while true {
                skipSpace()
                guard let key = string() else { return nil }
                skipSpace()
                guard take(UInt8(ascii: ":")) else { return nil }
                skipSpace()
                guard let value = value(), members.updateValue(value, forKey: key) == nil else { return nil }
                skipSpace()
                if take(UInt8(ascii: ",")) { continue }
                guard take(UInt8(ascii: "}")) else { return nil }
                return atEnd() ? members : nil
            }
        }

        private mutating func value() -> Value? {
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""): return string().map(Value.string)
            case UInt8(ascii: "t"): return literal("true") ? .bool(true) : nil
            case UInt8(ascii: "f"): return literal("false") ? .bool(false) : nil
            case UInt8(ascii: "n"): return literal("null") ? .null : nil
            default: return nil
            }
        }

        /// A string literal, unescaped; nil for a raw control character or a bad escape.
        private mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            let start = index
            // Fast path: no escape at all, so the bytes are the string (they are valid UTF-8: they
            // came from a Swift string).
            while index < bytes.count {
                let byte = bytes[index]
                if byte == UInt8(ascii: "\"") {
                    defer { index += 1 }
                    return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<index]), as: UTF8.self)
                }
                if byte == UInt8(ascii: "\\") { break }
                if byte < 0x20 { return nil }
                index += 1
            }
            var scalars = Array(bytes[start..<index])
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return String(decoding: scalars, as: UTF8.self)
                case UInt8(ascii: "\\"):
                    guard index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scalars.append(escape)
                    case UInt8(ascii: "b"): scalars.append(0x08)
                    case UInt8(ascii: "f"): scalars.append(0x0C)
                    case UInt8(ascii: "n"): scalars.append(0x0A)
                    case UInt8(ascii: "r"): scalars.append(0x0D)
                    case UInt8(ascii: "t"): scalars.append(0x09)
                    case UInt8(ascii: "u"):
                        guard let scalar = unicodeEscape() else { return nil }
                        scalars.append(contentsOf: String(Character(scalar)).utf8)
                    default: return nil
                    }
                case 0..<0x20:
                    return nil
                default:
                    scalars.append(byte)
                }
            }
            return nil
        }

        /// The scalar of `\uXXXX` (its `\u` already read), joining a surrogate pair; nil for a lone surrogate.
        private mutating func unicodeEscape() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            if (0xD800...0xDBFF).contains(high) {
                guard take(UInt8(ascii: "\\")), take(UInt8(ascii: "u")), let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
                return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
            }
            return Unicode.Scalar(high)
        }

        private mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count else { return nil }
            var value: UInt32 = 0
            for _ in 0..<4 {
                let byte = bytes[index]
                index += 1
                let digit: UInt8
                switch byte {
                case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
                case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
                case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
                default: return nil
                }
                value = value << 4 | UInt32(digit)
            }
            return value
        }

        private mutating func literal(_ word: StaticString) -> Bool {
            let count = word.utf8CodeUnitCount
            guard index + count <= bytes.count else { return false }
            for offset in 0..<count where bytes[index + offset] != word.utf8Start[offset] { return false }
            index += count
            return true
        }

        private mutating func take(_ byte: UInt8) -> Bool {
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        private mutating func skipSpace() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        private mutating func atEnd() -> Bool {
            skipSpace()
            return index == bytes.count
        }
    }
}

extension ClientFrame {
    /// A `send` frame read without `JSONDecoder` (the frame every message arrives in), or nil when
    /// the text is anything else: another frame type, or a send that is not plain (the caller
    /// then decodes it the general way, which also gives the precise error for a bad one).
    public static func fastSend(_ text: String) -> ClientFrame? {
        guard let members = FlatJSON.object(text), members["type"] == .string("send"),
              case .string(let conversation)? = members["conversation_id"],
              let conversationID = ConversationID(validating: conversation),
              case .string(let clientMessageID)? = members["client_message_id"],
              case .string(let text)? = members["text"]
        else { return nil }
        let ref: String?
        switch members["ref"] {
        case nil, .null?: ref = nil
        case .string(let value)?: ref = value
        case .bool?: return nil
        }
        return .send(Send(ref: ref, conversationID: conversationID, clientMessageID: clientMessageID, text: text))
    }
}

extension ParleyJSON {
    /// A JSON object of strings (a conversation's or visitor's attributes) read without
    /// `JSONDecoder`; nil when the text is anything else (the caller decodes it the general way).
    public static func stringMap(_ text: String) -> [String: String]? {
        if text == "{}" { return [:] }
        guard let members = FlatJSON.object(text) else { return nil }
        var map: [String: String] = [:]
        map.reserveCapacity(members.count)
        for (key, value) in members {
            guard case .string(let string) = value else { return nil }
            map[key] = string
        }
        return map
    }
}
