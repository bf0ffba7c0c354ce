import Foundation

public enum WebhookEndpointKind: IdentifierKind { public static let prefix = "whk" }
public enum WebhookMessageKind: IdentifierKind { public static let prefix = "msg" }
/// A webhook endpoint's id (`whk_…`).
public typealias WebhookEndpointID = Identifier<WebhookEndpointKind>
/// A webhook message's id (`msg_…`): the `webhook-id` header, the same on every retry.
public typealias WebhookMessageID = Identifier<WebhookMessageKind>

/// The events an endpoint may subscribe to (docs/protocol.md "Webhooks").
public enum WebhookEventType: String, Hashable, Sendable, Codable, CaseIterable {
    /// A visitor or an agent wrote a message (Pyrus' "webhook per agent reply").
    case messageCreated = "message.created"
    /// A visitor opened a conversation.
    case conversationStarted = "conversation.started"
    /// An agent took a conversation (routing assigned it, an agent accepted it, or it was transferred to an agent).
    case conversationAssigned = "conversation.assigned"
    /// A conversation ended (by the visitor, the agent, or cancelled while queued).
    case conversationEnded = "conversation.ended"
    /// A visitor rated an ended conversation.
    case ratingCreated = "rating.created"
    /// A visitor answered a form (pre-chat or unavailable with the opening, post-chat afterwards).
    case formSubmitted = "form.submitted"
    /// A visitor asked for a callback (the conversation's `callback` says what kind).
    case callbackRequested = "callback.requested"
    /// An agent is ready for a callback request; its visitor is asked to confirm.
    case callbackOffered = "callback.offered"
    /// The visitor confirmed: the agent calls, is called, or chats.
    case callbackConfirmed = "callback.confirmed"
    /// The visitor asked to be asked again later.
    case callbackSnoozed = "callback.snoozed"
    /// An offer went unconfirmed (or its agent went away) and the request waits in its queue again.
    case callbackRequeued = "callback.requeued"
    /// A scheduled request's time came: it waits in its queue again.
    case callbackDue = "callback.due"
    /// The visitor cancelled the request.
    case callbackCancelled = "callback.cancelled"
    /// An offer went unconfirmed and the queue ends such requests.
    case callbackExpired = "callback.expired"
    /// The agent recorded the outcome; the request is done.
    case callbackCompleted = "callback.completed"
    /// The agent recorded the outcome and will try again at the request's `scheduled_until`.
    case callbackRescheduled = "callback.rescheduled"
}

/// An app's webhook endpoint as admins see it. Its secret is shown once, when made or rotated.
public struct WebhookEndpoint: Hashable, Sendable, Codable {
    public var id: WebhookEndpointID
    public var appID: AppID
    /// Where the events are POSTed (https, public address; see docs/protocol.md).
    public var url: String
    public var description: String?
    /// The events sent; empty means every event.
    public var events: [WebhookEventType]
    /// False when an admin turned it off, or when deliveries kept failing past the retry time.
    public var isEnabled: Bool
    /// Why it was disabled, when it was.
    public var disabledReason: String?
    /// Until when the secret before the last rotation still signs (both signatures are sent).
    public var previousSecretExpiresAt: Date?
    public var createdAt: Date
    public var updatedAt: Date

    public init(
        id: WebhookEndpointID, appID: AppID, url: String, description: String?, events: [WebhookEventType], isEnabled: Bool,
        disabledReason: String?, previousSecretExpiresAt: Date?, createdAt: Date, updatedAt: Date
    ) {
        self.id = id
        self.appID = appID
        self.url = url
        self.description = description
        self.events = events
        self.isEnabled = isEnabled
        self.disabledReason = disabledReason
        self.previousSecretExpiresAt = previousSecretExpiresAt
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// True when the endpoint takes events of `type`.
    public func subscribes(to type: WebhookEventType) -> Bool { events.isEmpty || events.contains(type) }

    enum CodingKeys: String, CodingKey {
        case id, appID = "app_id", url, description, events, isEnabled = "enabled", disabledReason = "disabled_reason"
        case previousSecretExpiresAt = "previous_secret_expires_at", createdAt = "created_at", updatedAt = "updated_at"
    }
}

/// `POST /v1/admin/apps/:app/webhooks`.
public struct CreateWebhookRequest: Hashable, Sendable, Codable {
    public var url: String
    /// Empty or absent: every event.
    public var events: [WebhookEventType]?
    public var description: String?
    public init(url: String, events: [WebhookEventType]? = nil, description: String? = nil) {
        self.url = url
        self.events = events
        self.description = description
    }
}

/// `PATCH /v1/admin/apps/:app/webhooks/:webhook`: absent fields stay as they are.
public struct UpdateWebhookRequest: Hashable, Sendable, Codable {
    public var url: String?
    public var events: [WebhookEventType]?
    public var description: String?
    /// False turns the endpoint off; true turns it on again (as `…/enable` does).
    public var enabled: Bool?
    public init(url: String? = nil, events: [WebhookEventType]? = nil, description: String? = nil, enabled: Bool? = nil) {
        self.url = url
        self.events = events
        self.description = description
        self.enabled = enabled
    }
}

/// An endpoint with its signing secret (`whsec_…`): the answer to a creation or a rotation, the
/// only time the secret is shown.
public struct WebhookEndpointWithSecret: Hashable, Sendable, Codable {
    public var endpoint: WebhookEndpoint
    public var secret: String
    public init(endpoint: WebhookEndpoint, secret: String) {
        self.endpoint = endpoint
        self.secret = secret
    }
}

/// `GET /v1/admin/apps/:app/webhooks`.
public struct WebhookEndpointList: Hashable, Sendable, Codable {
    public var webhooks: [WebhookEndpoint]
    public init(webhooks: [WebhookEndpoint]) { self.webhooks = webhooks }
}

/// One try to deliver a webhook message.
public struct WebhookAttempt: Hashable, Sendable, Codable {
    public var number: Int
    public var at: Date
    /// The receiver's HTTP status; nil when no answer came (refused, timed out, unreachable).
    public var status: Int?
    /// The start of the receiver's answer (at most 1,000 characters).
    public var response: String?
    /// Why the attempt failed, when it did.
    public var error: String?
    public var durationMilliseconds: Int
    public init(number: Int, at: Date, status: Int?, response: String?, error: String?, durationMilliseconds: Int) {
        self.number = number
        self.at = at
        self.status = status
        self.response = response
        self.error = error
        self.durationMilliseconds = durationMilliseconds
    }

    enum CodingKeys: String, CodingKey {
        case number, at, status, response, error, durationMilliseconds = "duration_ms"
    }
}

/// A webhook message on its way to one endpoint, with every attempt.
public struct WebhookDelivery: Hashable, Sendable, Codable {
    public enum Status: String, Hashable, Sendable, Codable {
        /// Waiting for its first or next attempt (or for its endpoint to be enabled again).
        case pending
        case delivered
        /// Given up: it kept failing for the whole retry time, or its endpoint was deleted.
        case failed
    }

    /// The delivery's id (message and endpoint), for `…/deliveries/:delivery/resend`.
    public var id: String
    /// The `webhook-id` header: the same on every retry and resend.
    public var webhookID: String
    public var endpointID: WebhookEndpointID
    public var type: String
    public var conversationID: ConversationID
    public var status: Status
    public var createdAt: Date
    /// When the next attempt is due (pending deliveries).
    public var nextAttemptAt: Date?
    /// The request body sent (once the first attempt made it), else nil.
    public var request: String?
    public var attempts: [WebhookAttempt]
    public var lastError: String?

    public init(
        id: String, webhookID: String, endpointID: WebhookEndpointID, type: String, conversationID: ConversationID, status: Status,
        createdAt: Date, nextAttemptAt: Date?, request: String?, attempts: [WebhookAttempt], lastError: String?
    ) {
        self.id = id
        self.webhookID = webhookID
        self.endpointID = endpointID
        self.type = type
        self.conversationID = conversationID
        self.status = status
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.request = request
        self.attempts = attempts
        self.lastError = lastError
    }

    enum CodingKeys: String, CodingKey {
        case id, webhookID = "webhook_id", endpointID = "endpoint_id", type, conversationID = "conversation_id", status
        case createdAt = "created_at", nextAttemptAt = "next_attempt_at", request, attempts, lastError = "last_error"
    }
}

/// `GET /v1/admin/apps/:app/webhooks/:webhook/deliveries`: newest first.
public struct WebhookDeliveryList: Hashable, Sendable, Codable {
    public var deliveries: [WebhookDelivery]
    public init(deliveries: [WebhookDelivery]) { self.deliveries = deliveries }
}
