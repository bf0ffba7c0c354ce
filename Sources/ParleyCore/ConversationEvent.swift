import Foundation

/// One stored event of a conversation, numbered by its gap-free `seq`.
///
/// On the wire the body's fields sit beside the common ones, keyed by `type`:
/// `{"conversation_id": "cnv_…", "seq": 4, "type": "message", "created_at": "…",
///   "author": {"role": "visitor", …}, "client_message_id": "…", "text": "Hello"}`.
public struct ConversationEvent: Hashable, Sendable, Codable {
    public var conversationID: ConversationID
    /// 1 for the conversation's first event, then +1 for each; never reused, never skipped.
    public var seq: Int64
    public var createdAt: Date
    /// Who caused the event.
    public var author: Participant
    /// What happened.
    public var body: EventBody

    /// Creates an event.
    public init(conversationID: ConversationID, seq: Int64, createdAt: Date, author: Participant, body: EventBody) {
        self.conversationID = conversationID
        self.seq = seq
        self.createdAt = createdAt
        self.author = author
        self.body = body
    }

    /// The message body when this event is a message.
    public var message: MessageBody? {
        if case .message(let message) = body { return message }
        return nil
    }

    /// True for what a participant wrote or showed (a message, a pushed page): what counts as
    /// unread for the other side.
    public var isContent: Bool {
        switch body {
        case .message, .pagePushed: true
        default: false
        }
    }

    /// The client's id of a message or a pushed page: what makes sending it again idempotent.
    public var clientMessageID: String? {
        switch body {
        case .message(let message): message.clientMessageID
        case .pagePushed(let page): page.clientMessageID
        default: nil
        }
    }

    enum CodingKeys: String, CodingKey {
        case conversationID = "conversation_id", seq, createdAt = "created_at", author, type
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        conversationID = try container.decode(ConversationID.self, forKey: .conversationID)
        seq = try container.decode(Int64.self, forKey: .seq)
        createdAt = try container.decode(Date.self, forKey: .createdAt)
        author = try container.decode(Participant.self, forKey: .author)
        body = try EventBody(type: container.decode(String.self, forKey: .type), from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(conversationID, forKey: .conversationID)
        try container.encode(seq, forKey: .seq)
        try container.encode(createdAt, forKey: .createdAt)
        try container.encode(author, forKey: .author)
        try container.encode(body.type, forKey: .type)
        try body.encodeFields(to: encoder)
    }
}

/// What a stored event says.
public enum EventBody: Hashable, Sendable {
    /// A text message written by the author.
    case message(MessageBody)
    /// A participant (an agent) joined the conversation.
    case participantJoined(ParticipantJoined)
    /// A participant (an agent) left the conversation.
    case participantLeft(ParticipantLeft)
    /// The conversation's state changed.
    case stateChanged(StateChange)
    /// The author has read the conversation up to a seq.
    case read(ReadMarker)
    /// An agent showed the visitor a web page.
    case pagePushed(PagePush)
    /// A callback request changed (``CallbackChange``).
    case callback(CallbackChange)
    /// An event of a type this version does not know (a newer server's). It keeps its place in
    /// the order (its seq), so a client moves past it and shows nothing for it.
    case unknown(type: String)

    /// The wire name of the event type.
    public var type: String {
        switch self {
        case .message: "message"
        case .participantJoined: "participant_joined"
        case .participantLeft: "participant_left"
        case .stateChanged: "state_changed"
        case .read: "read"
        case .pagePushed: "page_pushed"
        case .callback: "callback"
        case .unknown(let type): type
        }
    }

    /// Decodes the body's fields for a wire type from the event's own decoder.
    public init(type: String, from decoder: any Decoder) throws {
        switch type {
        case "message": self = .message(try MessageBody(from: decoder))
        case "participant_joined": self = .participantJoined(try ParticipantJoined(from: decoder))
        case "participant_left": self = .participantLeft(try ParticipantLeft(from: decoder))
        case "state_changed": self = .stateChanged(try StateChange(from: decoder))
        case "read": self = .read(try ReadMarker(from: decoder))
        case "page_pushed": self = .pagePushed(try PagePush(from: decoder))
        case "callback": self = .callback(try CallbackChange(from: decoder))
        default:
            // A newer server's event: kept (its seq counts), its fields left unread.
            self = .unknown(type: type)
        }
    }

    func encodeFields(to encoder: any Encoder) throws {
        switch self {
        case .message(let value): try value.encode(to: encoder)
        case .participantJoined(let value): try value.encode(to: encoder)
        case .participantLeft(let value): try value.encode(to: encoder)
        case .stateChanged(let value): try value.encode(to: encoder)
        case .read(let value): try value.encode(to: encoder)
        case .pagePushed(let value): try value.encode(to: encoder)
        case .callback(let value): try value.encode(to: encoder)
        case .unknown: break
        }
    }
}

/// A message: text, or a file with an optional caption.
public struct MessageBody: Hashable, Sendable, Codable {
    /// The id the sender gave the message; sending it again is idempotent.
    public var clientMessageID: String
    /// The text, at most ``Limits/maxMessageLength`` characters; never empty without an attachment,
    /// and the attachment's caption (possibly empty) with one.
    public var text: String
    /// The file the message carries, if any. Clients that predate attachments read the caption.
    public var attachment: Attachment?

    /// Creates a message body.
    /// - Parameters:
    ///   - clientMessageID: the sender's id for the message.
    ///   - text: the text, or the attachment's caption.
    ///   - attachment: the file, if any.
    public init(clientMessageID: String, text: String, attachment: Attachment? = nil) {
        self.clientMessageID = clientMessageID
        self.text = text
        self.attachment = attachment
    }

    enum CodingKeys: String, CodingKey { case clientMessageID = "client_message_id", text, attachment }
}

/// A participant joined.
public struct ParticipantJoined: Hashable, Sendable, Codable {
    public var participant: Participant
    public init(participant: Participant) { self.participant = participant }
}

/// A participant left, and why.
public struct ParticipantLeft: Hashable, Sendable, Codable {
    /// Why a participant left.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// The conversation ended.
        case ended
        /// The agent stayed offline past the grace time; the conversation went back to its queue.
        case offline
        /// The conversation was handed to someone else.
        case transferred
    }

    public var participant: Participant
    public var reason: Reason

    public init(participant: Participant, reason: Reason) {
        self.participant = participant
        self.reason = reason
    }
}

/// A change of conversation state.
public struct StateChange: Hashable, Sendable, Codable {
    /// Why the state changed.
    public enum Reason: String, Hashable, Sendable, Codable {
        /// The visitor opened the conversation.
        case opened
        /// Routing or an agent assigned it.
        case assigned
        /// The visitor ended it.
        case endedByVisitor = "ended_by_visitor"
        /// The agent ended it.
        case endedByAgent = "ended_by_agent"
        /// The visitor cancelled it while it waited in the queue.
        case cancelled
        /// The visitor wrote into an ended conversation, which reopened it into its queue.
        case reopened
        /// The agent went offline past the grace time and it went back to the head of the queue.
        case requeued
        /// An agent or admin handed it to another agent (`to: assigned`) or queue (`to: queued`).
        case transferred
        /// A callback request's offer went unconfirmed and its queue ends such requests.
        case expired
    }

    /// The state before; nil when the conversation was just created.
    public var from: ConversationState?
    public var to: ConversationState
    public var reason: Reason
    /// The agent it was assigned to, for `assigned` and for a `transferred` to an agent.
    public var agentID: AgentID?
    /// The queue it went to, for a `transferred` to a queue (a transcript can name it later).
    public var queueID: QueueID?

    public init(from: ConversationState?, to: ConversationState, reason: Reason, agentID: AgentID? = nil, queueID: QueueID? = nil) {
        self.from = from
        self.to = to
        self.reason = reason
        self.agentID = agentID
        self.queueID = queueID
    }

    enum CodingKeys: String, CodingKey { case from, to, reason, agentID = "agent_id", queueID = "queue_id" }
}

/// The author has read everything up to and including `readSeq`.
public struct ReadMarker: Hashable, Sendable, Codable {
    public var readSeq: Int64
    public init(readSeq: Int64) { self.readSeq = readSeq }
    enum CodingKeys: String, CodingKey { case readSeq = "read_seq" }
}
