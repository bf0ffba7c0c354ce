/// A frame the server sends on `/v1/realtime`. Each is a JSON object with a `type`.
public enum ServerFrame: Hashable, Sendable {
    /// First frame on every connection: who you are and the store's epoch.
    case ready(Ready)
    /// A stored conversation event, delivered in seq order, exactly once per subscription.
    case event(ConversationEvent)
    /// A sent message is durably stored.
    case ack(Ack)
    /// A subscription is caught up: every event up to `last_seq` has been delivered.
    case subscribed(Subscribed)
    /// The client's epoch is not the server's: drop what you hold of the conversation; a full replay follows.
    case reset(Reset)
    /// Someone started or stopped typing (live only).
    case typing(Typing)
    /// A queued conversation's 1-based position changed (live only).
    case queuePosition(QueuePosition)
    /// A conversation's summary changed (visitors: their own; agents: their app's inbox).
    case conversation(Conversation)
    /// A request failed; `ref` names it when it had one.
    case error(ErrorFrame)
    /// The answer to `ping`.
    case pong(Pong)
    /// An internal note was added to a conversation (agents subscribed to it only).
    case note(InternalNote)
    /// A conversation's triage changed: tags, priority, snooze (agents subscribed to it only).
    case triage(Triage)
    /// `{"type": "answers", "answers": {…}}`: a conversation's rating or form answers changed (agents of the app only).
    case answers(ConversationAnswers)
    /// `{"type": "tags", "tags": [{"name", "color"}]}`: the app's tag list changed (agents of the app only).
    case tags(TagList)
    /// `{"type": "team", "agent_id": "agt_…"}`: an agent's availability, profile or connection changed;
    /// `GET /v1/team` has the app's team as it is now (agents of the app only).
    case team(TeamChange)

    /// `{"type": "ready", "epoch": "…", "participant": {…}, "heartbeat_seconds": 30}`
    public struct Ready: Hashable, Sendable, Codable {
        public var epoch: String
        public var participant: Participant
        /// How often the server pings at the WebSocket level.
        public var heartbeatSeconds: Int
        public init(epoch: String, participant: Participant, heartbeatSeconds: Int) {
            self.epoch = epoch
            self.participant = participant
            self.heartbeatSeconds = heartbeatSeconds
        }
        enum CodingKeys: String, CodingKey { case epoch, participant, heartbeatSeconds = "heartbeat_seconds" }
    }

    /// `{"type": "ack", "ref": "1", "duplicate": false, "event": {…}}`
    public struct Ack: Hashable, Sendable, Codable {
        public var ref: String?
        /// True when the message had been stored before (an idempotent resend).
        public var duplicate: Bool
        /// The stored message event, with its seq.
        public var event: ConversationEvent
        public init(ref: String?, duplicate: Bool, event: ConversationEvent) {
            self.ref = ref
            self.duplicate = duplicate
            self.event = event
        }
    }

    /// `{"type": "subscribed", "conversation_id": "cnv_…", "last_seq": 14, "epoch": "…"}`
    public struct Subscribed: Hashable, Sendable, Codable {
        public var conversationID: ConversationID
        public var lastSeq: Int64
        public var epoch: String
        public init(conversationID: ConversationID, lastSeq: Int64, epoch: String) {
            self.conversationID = conversationID
            self.lastSeq = lastSeq
            self.epoch = epoch
        }
        enum CodingKeys: String, CodingKey { case conversationID = "conversation_id", lastSeq = "last_seq", epoch }
    }

    /// `{"type": "reset", "conversation_id": "cnv_…", "epoch": "…"}`
    public struct Reset: Hashable, Sendable, Codable {
        public var conversationID: ConversationID
        public var epoch: String
        public init(conversationID: ConversationID, epoch: String) {
            self.conversationID = conversationID
            self.epoch = epoch
        }
        enum CodingKeys: String, CodingKey { case conversationID = "conversation_id", epoch }
    }

    /// `{"type": "typing", "conversation_id": "cnv_…", "participant": {…}, "is_typing": true}`
    public struct Typing: Hashable, Sendable, Codable {
        public var conversationID: ConversationID
        public var participant: Participant
        public var isTyping: Bool
        public init(conversationID: ConversationID, participant: Participant, isTyping: Bool) {
            self.conversationID = conversationID
            self.participant = participant
            self.isTyping = isTyping
        }
        enum CodingKeys: String, CodingKey { case conversationID = "conversation_id", participant, isTyping = "is_typing" }
    }

    /// `{"type": "queue_position", "conversation_id": "cnv_…", "position": 2}`
    public struct QueuePosition: Hashable, Sendable, Codable {
        public var conversationID: ConversationID
        public var position: Int
        public init(conversationID: ConversationID, position: Int) {
            self.conversationID = conversationID
            self.position = position
        }
        enum CodingKeys: String, CodingKey { case conversationID = "conversation_id", position }
    }

    /// `{"type": "error", "ref": "1", "conversation_id": "cnv_…", "code": "not_found", "message": "…"}`
    public struct ErrorFrame: Hashable, Sendable, Codable {
        /// The `ref` of the frame that failed, when it had one.
        public var ref: String?
        /// The conversation the failed frame was about, when it named one.
        public var conversationID: ConversationID?
        public var code: String
        public var message: String
        public init(ref: String?, conversationID: ConversationID? = nil, code: String, message: String) {
            self.ref = ref
            self.conversationID = conversationID
            self.code = code
            self.message = message
        }
        enum CodingKeys: String, CodingKey { case ref, conversationID = "conversation_id", code, message }
    }

    /// `{"type": "pong", "ref": "3"}`
    public struct Pong: Hashable, Sendable, Codable {
        public var ref: String?
        public init(ref: String?) { self.ref = ref }
    }

    /// The wire name of the frame type.
    public var type: String {
        switch self {
        case .ready: "ready"
        case .event: "event"
        case .ack: "ack"
        case .subscribed: "subscribed"
        case .reset: "reset"
        case .typing: "typing"
        case .queuePosition: "queue_position"
        case .conversation: "conversation"
        case .error: "error"
        case .pong: "pong"
        case .note: "note"
        case .triage: "triage"
        case .answers: "answers"
        case .tags: "tags"
        case .team: "team"
        }
    }
}

extension ServerFrame: Codable {
    enum Keys: String, CodingKey { case type, event, conversation, note, triage, answers }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let type = try container.decode(String.self, forKey: .type)
        switch type {
        case "ready": self = .ready(try Ready(from: decoder))
        case "event": self = .event(try container.decode(ConversationEvent.self, forKey: .event))
        case "ack": self = .ack(try Ack(from: decoder))
        case "subscribed": self = .subscribed(try Subscribed(from: decoder))
        case "reset": self = .reset(try Reset(from: decoder))
        case "typing": self = .typing(try Typing(from: decoder))
        case "queue_position": self = .queuePosition(try QueuePosition(from: decoder))
        case "conversation": self = .conversation(try container.decode(Conversation.self, forKey: .conversation))
        case "error": self = .error(try ErrorFrame(from: decoder))
        case "pong": self = .pong(try Pong(from: decoder))
        case "note": self = .note(try container.decode(InternalNote.self, forKey: .note))
        case "triage": self = .triage(try container.decode(Triage.self, forKey: .triage))
        case "answers": self = .answers(try container.decode(ConversationAnswers.self, forKey: .answers))
        case "tags": self = .tags(try TagList(from: decoder))
        case "team": self = .team(try TeamChange(from: decoder))
        default: throw FrameTypeError(type: type)
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(type, forKey: .type)
        switch self {
        case .ready(let frame): try frame.encode(to: encoder)
        case .event(let event): try container.encode(event, forKey: .event)
        case .ack(let frame): try frame.encode(to: encoder)
        case .subscribed(let frame): try frame.encode(to: encoder)
        case .reset(let frame): try frame.encode(to: encoder)
        case .typing(let frame): try frame.encode(to: encoder)
        case .queuePosition(let frame): try frame.encode(to: encoder)
        case .conversation(let conversation): try container.encode(conversation, forKey: .conversation)
        case .note(let note): try container.encode(note, forKey: .note)
        case .triage(let triage): try container.encode(triage, forKey: .triage)
        case .answers(let answers): try container.encode(answers, forKey: .answers)
        case .tags(let list): try list.encode(to: encoder)
        case .team(let change): try change.encode(to: encoder)
        case .error(let frame): try frame.encode(to: encoder)
        case .pong(let frame): try frame.encode(to: encoder)
        }
    }
}
