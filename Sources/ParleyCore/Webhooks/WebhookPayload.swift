import Foundation

/// The body of a webhook request: the event's type, when it happened, the app, and its data
/// (Standard Webhooks' `type` / `timestamp` / `data` shape). docs/protocol.md "Webhooks" lists
/// which fields of ``WebhookEventData`` each type carries.
public struct WebhookPayload: Hashable, Sendable, Codable {
    public var type: WebhookEventType
    /// When the event happened (not when it was sent: that is the `webhook-timestamp` header).
    public var timestamp: Date
    public var appID: AppID
    public var data: WebhookEventData

    public init(type: WebhookEventType, timestamp: Date, appID: AppID, data: WebhookEventData) {
        self.type = type
        self.timestamp = timestamp
        self.appID = appID
        self.data = data
    }

    enum CodingKeys: String, CodingKey { case type, timestamp, appID = "app_id", data }
}

/// What an event is about. Every event has the conversation and its visitor; the rest depends on the type.
public struct WebhookEventData: Hashable, Sendable, Codable {
    /// The conversation as it stands after the event.
    public var conversation: Conversation
    /// Who the conversation is with: the visitor's id, name and, for a verified visitor, the app's user id.
    public var visitor: WebhookVisitor
    /// `message.created`: the message.
    public var message: WebhookMessage?
    /// `message.created`: who wrote it (a visitor or an agent, with their name).
    public var author: Participant?
    /// `conversation.assigned`: the agent who took it.
    public var agent: Participant?
    /// `conversation.started`, `.assigned`, `.ended`: why (`opened`, `assigned`, `transferred`,
    /// `ended_by_visitor`, `ended_by_agent`, `cancelled`).
    public var reason: String?
    /// `rating.created`: the rating.
    public var rating: Rating?
    /// `form.submitted` (and `conversation.started` when a pre-chat form was answered): the answers.
    public var form: FormSubmission?

    public init(
        conversation: Conversation, visitor: WebhookVisitor, message: WebhookMessage? = nil, author: Participant? = nil,
        agent: Participant? = nil, reason: String? = nil, rating: Rating? = nil, form: FormSubmission? = nil
    ) {
        self.conversation = conversation
        self.visitor = visitor
        self.message = message
        self.author = author
        self.agent = agent
        self.reason = reason
        self.rating = rating
        self.form = form
    }
}

/// The visitor of a webhook event.
public struct WebhookVisitor: Hashable, Sendable, Codable {
    public var id: VisitorID
    public var name: String?
    /// The app's own user id, for a verified visitor (Pyrus' `user_id`).
    public var userID: String?

    public init(id: VisitorID, name: String? = nil, userID: String? = nil) {
        self.id = id
        self.name = name
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey { case id, name, userID = "user_id" }
}

/// The message of a `message.created` event.
public struct WebhookMessage: Hashable, Sendable, Codable {
    /// Its place in the conversation (gap-free, increasing).
    public var seq: Int64
    public var clientMessageID: String
    public var text: String
    public var attachment: Attachment?
    public var createdAt: Date

    public init(seq: Int64, clientMessageID: String, text: String, attachment: Attachment?, createdAt: Date) {
        self.seq = seq
        self.clientMessageID = clientMessageID
        self.text = text
        self.attachment = attachment
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey { case seq, clientMessageID = "client_message_id", text, attachment, createdAt = "created_at" }
}
