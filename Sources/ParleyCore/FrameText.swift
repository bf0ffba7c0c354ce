/// Server frames built around an event that is already JSON (the text the store wrote), so that a
/// message is encoded once rather than once per socket and once more for its `ack`.
///
/// The output is byte for byte what `JSONEncoder` with ``ParleyJSON``'s settings (sorted keys, no
/// escaped slashes) writes for the same ``ServerFrame``; `FrameTextTests` holds it to that.
public enum FrameText {
    /// `{"event":{…},"type":"event"}`
    public static func event(encodedEvent: String) -> String {
        #"{"event":"# + encodedEvent + #","type":"event"}"#
    }

    /// `{"duplicate":false,"event":{…},"ref":"1","type":"ack"}`, without `ref` when there is none.
    public static func ack(ref: String?, duplicate: Bool, encodedEvent: String) -> String {
        var text = #"{"duplicate":"# + (duplicate ? "true" : "false") + #","event":"# + encodedEvent
        if let ref { text += #","ref":"# + quoted(ref) }
        return text + #","type":"ack"}"#
    }

    /// A JSON string literal, escaped the way `JSONEncoder` escapes (short forms where JSON has
    /// them, `\u00XX` for other control characters, everything else as it is).
    public static func quoted(_ text: String) -> String {
        var bytes: [UInt8] = [UInt8(ascii: "\"")]
        bytes.reserveCapacity(text.utf8.count + 2)
        let hex = Array("0123456789abcdef".utf8)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): bytes += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0x0A: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "n")]
            case 0x0D: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "r")]
            case 0x09: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "t")]
            case 0x08: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "b")]
            case 0x0C: bytes += [UInt8(ascii: "\\"), UInt8(ascii: "f")]
            case 0..<0x20: bytes += Array(#"\u00"#.utf8) + [hex[Int(byte >> 4)], hex[Int(byte & 0xF)]]
            default: bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension FrameText {
    /// The stored JSON of a message event, byte for byte what `JSONEncoder` with ``ParleyJSON``'s
    /// settings writes for it, built without the encoder (a message is the event stored most);
    /// nil for other kinds of event and for attachments, which go through ``ParleyJSON``.
    public static func messageEvent(_ event: ConversationEvent) -> String? {
        guard case .message(let message) = event.body, message.attachment == nil else { return nil }
        return #"{"author":"# + participant(event.author) + #","client_message_id":"# + quoted(message.clientMessageID)
            + #","conversation_id":"# + quoted(event.conversationID.rawValue) + #","created_at":""# + Timestamp.format(event.createdAt)
            + #"","seq":"# + String(event.seq) + #","text":"# + quoted(message.text) + #","type":"message"}"#
    }

    /// `{"id":…,"name":…,"role":…}`, leaving out what is nil, as the synthesized `Codable` does.
    static func participant(_ participant: Participant) -> String {
        var text = "{"
        if let id = participant.id { text += #""id":"# + quoted(id) + "," }
        if let name = participant.name { text += #""name":"# + quoted(name) + "," }
        return text + #""role":""# + participant.role.rawValue + #""}"#
    }
}
