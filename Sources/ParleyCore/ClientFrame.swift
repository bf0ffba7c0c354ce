/// A frame a client sends on `/v1/realtime`. Each is a JSON object with a `type`.
public enum ClientFrame: Hashable, Sendable {
    /// Start (or resume) receiving a conversation's events after a seq.
    case subscribe(Subscribe)
    /// Stop receiving a conversation's events.
    case unsubscribe(Unsubscribe)
    /// Send a text message; answered by an `ack` (or an `error`) with the same `ref`.
    case send(Send)
    /// Typing started or stopped (live only, never stored).
    case typing(Typing)
    /// Mark the conversation read up to a seq.
    case read(Read)
    /// An application-level ping; answered by `pong`.
    case ping(Ping)

    /// `{"type": "subscribe", "conversation_id": "cnv_…", "after_seq": 12, "epoch": "…"}`
    public struct Subscribe: Hashable, Sendable, Codable {
        public var conversationID: ConversationID
        /// Deliver events with a greater seq; 0 delivers the whole history.
        public var afterSeq: Int64
        /// The epoch the client's `after_seq` belongs to; when it differs from the server's, the
        /// server answers `reset` and replays from seq 0.
        public var epoch: String?
        public init(conversationID: ConversationID, afterSeq: Int64, epoch: String? = nil) {
            self.conversationID = conversationID
            self.afterSeq = afterSeq
            self.epoch = epoch
        }
        enum CodingKeys: String, CodingKey { case conversationID = "conversation_id", afterSeq = "after_seq", epoch }
    }

    /// `{"type": "unsubscribe", "conversation_id": "cnv_…"}`
    public struct Unsubscribe: Hashable, Sendable, Codable {
        public var conversationID: ConversationID
        public init(conversationID: ConversationID) { self.conversationID = conversationID }
        enum CodingKeys: String, CodingKey { case conversationID = "conversation_id" }
    }

    /// `{"type": "send", "ref": "1", "conversation_id": "cnv_…", "client_message_id": "…", "text": "Hi"}`
    public struct Send: Hashable, Sendable, Codable {
        /// Echoed in the answer so the client can match it.
        public var ref: String?
        public var conversationID: ConversationID
        /// The client's own id for the message (a UUID is best); the idempotency key.
        public var clientMessageID: String
        public var text: String
        public init(ref: String? = nil, conversationID: ConversationID, clientMessageID: String, text: String) {
            self.ref = ref
            self.conversationID = conversationID
            self.clientMessageID = clientMessageID
            self.text = text
        }
        enum CodingKeys: String, CodingKey {
            case ref, conversationID = "conversation_id", clientMessageID = "client_message_id", text
        }
    }

    /// `{"type": "typing", "conversation_id": "cnv_…", "is_typing": true}`
    public struct Typing: Hashable, Sendable, Codable {
        public var conversationID: ConversationID
        public var isTyping: Bool
        public init(conversationID: ConversationID, isTyping: Bool) {
            self.conversationID = conversationID
            self.isTyping = isTyping
        }
        enum CodingKeys: String, CodingKey { case conversationID = "conversation_id", isTyping = "is_typing" }
    }

    /// `{"type": "read", "ref": "2", "conversation_id": "cnv_…", "seq": 14}`
    public struct Read: Hashable, Sendable, Codable {
        public var ref: String?
        public var conversationID: ConversationID
        public var seq: Int64
        public init(ref: String? = nil, conversationID: ConversationID, seq: Int64) {
            self.ref = ref
            self.conversationID = conversationID
            self.seq = seq
        }
        enum CodingKeys: String, CodingKey { case ref, conversationID = "conversation_id", seq }
    }

    /// `{"type": "ping", "ref": "3"}`
    public struct Ping: Hashable, Sendable, Codable {
        public var ref: String?
        public init(ref: String? = nil) { self.ref = ref }
    }

    /// The conversation the frame is about, if any.
    public var conversationID: ConversationID? {
        switch self {
        case .subscribe(let frame): frame.conversationID
        case .unsubscribe(let frame): frame.conversationID
        case .send(let frame): frame.conversationID
        case .typing(let frame): frame.conversationID
        case .read(let frame): frame.conversationID
        case .ping: nil
        }
    }

    /// The wire name of the frame type.
    public var type: String {
        switch self {
        case .subscribe: "subscribe"
        case .unsubscribe: "unsubscribe"
        case .send: "send"
        case .typing: "typing"
        case .read: "read"
        case .ping: "ping"
        }
    }
}

extension ClientFrame: Codable {
    enum TypeKey: String, CodingKey { case type }

    public init(from decoder: any Decoder) throws {
        let type = try decoder.container(keyedBy: TypeKey.self).decode(String.self, forKey: .type)
        switch type {
        case "subscribe": self = .subscribe(try Subscribe(from: decoder))
        case "unsubscribe": self = .unsubscribe(try Unsubscribe(from: decoder))
        case "send": self = .send(try Send(from: decoder))
        case "typing": self = .typing(try Typing(from: decoder))
        case "read": self = .read(try Read(from: decoder))
        case "ping": self = .ping(try Ping(from: decoder))
        default: throw FrameTypeError(type: type)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: TypeKey.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .subscribe(let frame): try frame.encode(to: encoder)
        case .unsubscribe(let frame): try frame.encode(to: encoder)
        case .send(let frame): try frame.encode(to: encoder)
        case .typing(let frame): try frame.encode(to: encoder)
        case .read(let frame): try frame.encode(to: encoder)
        case .ping(let frame): try frame.encode(to: encoder)
        }
    }
}

/// Thrown when a frame's `type` is not one the protocol knows.
public struct FrameTypeError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The unknown type.
    public var type: String
    public var description: String { "unknown frame type \"\(type)\"" }
}
