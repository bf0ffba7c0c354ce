import Foundation

// Request and response bodies of the HTTP API (`/v1`). Documented with examples in docs/protocol.md.

/// The one error body: `{"error": {"code": "not_found", "message": "…"}}`.
public struct ErrorBody: Hashable, Sendable, Codable {
    public struct Detail: Hashable, Sendable, Codable {
        /// A stable, machine-readable code such as `bad_request`, `unauthorized`, `not_found`, `conflict`.
        public var code: String
        /// A human-readable explanation.
        public var message: String
        /// With `invalid_form`: each refused field and why, in the form's order.
        public var fields: [FormValidationErrors.FieldError]?
        public init(code: String, message: String, fields: [FormValidationErrors.FieldError]? = nil) {
            self.code = code
            self.message = message
            self.fields = fields
        }
    }
    public var error: Detail
    public init(code: String, message: String, fields: [FormValidationErrors.FieldError]? = nil) {
        self.error = Detail(code: code, message: message, fields: fields)
    }
}

/// `GET /health`.
public struct Health: Hashable, Sendable, Codable {
    public var status: String
    public var version: String
    public init(status: String, version: String) {
        self.status = status
        self.version = version
    }
}

/// `POST /v1/visitor/session`: start or continue a device-bound visitor session.
public struct VisitorSessionRequest: Hashable, Sendable, Codable {
    public var appID: AppID
    /// A stable id the SDK generates once per install; the same id is the same visitor.
    public var deviceID: String
    public var name: String?
    public var email: String?
    public var attributes: [String: String]?
    /// The app's id for the user, with one proof below: the session is then that user's, on every
    /// device (verified identity). Nil for an anonymous visitor.
    public var userID: String?
    /// For the app's auth service.
    public var securityKey: String?
    /// A signed user token (JWT).
    public var userToken: String?
    /// HMAC-SHA256 of the user id with the app's secret key, hex.
    public var userHash: String?

    public init(
        appID: AppID, deviceID: String, name: String? = nil, email: String? = nil, attributes: [String: String]? = nil,
        identity: IdentityProof? = nil
    ) {
        self.appID = appID
        self.deviceID = deviceID
        self.name = name
        self.email = email
        self.attributes = attributes
        self.userID = identity?.userID
        switch identity?.kind {
        case .securityKey(let key): securityKey = key
        case .userToken(let token): userToken = token
        case .userHash(let hash): userHash = hash
        case nil: break
        }
    }

    /// The identity proof the request carries: nil when anonymous.
    /// - Throws: ``Validation/Failure`` when a user id comes without exactly one proof, or a proof without a user id.
    public func identityProof() throws(Validation.Failure) -> IdentityProof? {
        let proofs: [IdentityProof.Kind] = [securityKey.map { .securityKey($0) }, userToken.map { .userToken($0) }, userHash.map { .userHash($0) }]
            .compactMap { $0 }
        guard let userID else {
            if proofs.isEmpty { return nil }
            throw Validation.Failure(field: "user_id", message: "a proof of identity needs the user id it proves")
        }
        guard proofs.count == 1, let kind = proofs.first else {
            throw Validation.Failure(field: "user_id", message: "give one proof with the user id: security_key, user_token or user_hash")
        }
        return IdentityProof(userID: userID, kind: kind)
    }

    enum CodingKeys: String, CodingKey {
        case appID = "app_id", deviceID = "device_id", name, email, attributes
        case userID = "user_id", securityKey = "security_key", userToken = "user_token", userHash = "user_hash"
    }
}

/// The answer to `POST /v1/visitor/session`.
public struct VisitorSession: Hashable, Sendable, Codable {
    /// A signed bearer token for the visitor.
    public var token: String
    public var expiresAt: Date
    public var visitor: Visitor
    public init(token: String, expiresAt: Date, visitor: Visitor) {
        self.token = token
        self.expiresAt = expiresAt
        self.visitor = visitor
    }
    enum CodingKeys: String, CodingKey { case token, expiresAt = "expires_at", visitor }
}

/// `POST /v1/agent/login`.
public struct AgentLoginRequest: Hashable, Sendable, Codable {
    public var email: String
    public var password: String
    public init(email: String, password: String) {
        self.email = email
        self.password = password
    }
}

/// The answer to `POST /v1/agent/login`.
public struct AgentSession: Hashable, Sendable, Codable {
    /// An opaque bearer token; `POST /v1/agent/logout` revokes it.
    public var token: String
    public var expiresAt: Date
    public var agent: Agent
    public init(token: String, expiresAt: Date, agent: Agent) {
        self.token = token
        self.expiresAt = expiresAt
        self.agent = agent
    }
    enum CodingKeys: String, CodingKey { case token, expiresAt = "expires_at", agent }
}

/// `POST /v1/desk/login` and `GET /v1/desk/session`: a browser session of the agent desk. The session
/// token itself stays in an HttpOnly cookie; the page gets only the CSRF token it must echo in the
/// `X-Parley-CSRF` header of every state-changing request.
public struct DeskSession: Hashable, Sendable, Codable {
    public var agent: Agent
    public var expiresAt: Date
    public var csrfToken: String
    /// True when the server sends email (`parleyd --smtp`): the desk offers "Email transcript" only then.
    public var mailEnabled: Bool?
    public init(agent: Agent, expiresAt: Date, csrfToken: String, mailEnabled: Bool? = nil) {
        self.agent = agent
        self.expiresAt = expiresAt
        self.csrfToken = csrfToken
        self.mailEnabled = mailEnabled
    }
    enum CodingKeys: String, CodingKey { case agent, expiresAt = "expires_at", csrfToken = "csrf_token", mailEnabled = "mail_enabled" }
}

/// `PUT /v1/agent/availability`.
public struct AvailabilityRequest: Hashable, Sendable, Codable {
    public var availability: Availability
    public init(availability: Availability) { self.availability = availability }
}

/// `POST /v1/conversations`: a visitor opens a conversation.
public struct OpenConversationRequest: Hashable, Sendable, Codable {
    /// The queue; nil picks the app's first queue.
    public var queueID: QueueID?
    public var subject: String?
    public var attributes: [String: String]?
    /// Answers to the queue's pre-chat form (or, with `offline`, its unavailable form).
    public var formAnswers: FormAnswers?
    /// True when the chat is closed or nobody is online: the unavailable form's answers open an
    /// offline conversation that agents answer later.
    public var offline: Bool?
    public init(queueID: QueueID? = nil, subject: String? = nil, attributes: [String: String]? = nil,
                formAnswers: FormAnswers? = nil, offline: Bool? = nil) {
        self.queueID = queueID
        self.subject = subject
        self.attributes = attributes
        self.formAnswers = formAnswers
        self.offline = offline
    }
    enum CodingKeys: String, CodingKey { case queueID = "queue_id", subject, attributes, formAnswers = "form_answers", offline }
}

/// `GET /v1/conversations`.
public struct ConversationList: Hashable, Sendable, Codable {
    public var conversations: [Conversation]
    /// For agents: the triage of every listed conversation (tags, priority, snooze).
    public var triage: [Triage]?
    /// For agents: pass as `cursor` for the next page; absent on the last page.
    public var nextCursor: String?
    public init(conversations: [Conversation], triage: [Triage]? = nil, nextCursor: String? = nil) {
        self.conversations = conversations
        self.triage = triage
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey { case conversations, triage, nextCursor = "next_cursor" }
}

/// `POST /v1/conversations/{id}/messages`.
public struct SendMessageRequest: Hashable, Sendable, Codable {
    public var clientMessageID: String
    public var text: String
    public init(clientMessageID: String, text: String) {
        self.clientMessageID = clientMessageID
        self.text = text
    }
    enum CodingKeys: String, CodingKey { case clientMessageID = "client_message_id", text }
}

/// The answer to `POST /v1/conversations/{id}/messages`: 201 when stored now, 200 for a resend.
public struct SendMessageResponse: Hashable, Sendable, Codable {
    public var duplicate: Bool
    public var event: ConversationEvent
    public init(duplicate: Bool, event: ConversationEvent) {
        self.duplicate = duplicate
        self.event = event
    }
}

/// `POST /v1/conversations/{id}/read`.
public struct ReadRequest: Hashable, Sendable, Codable {
    public var seq: Int64
    public init(seq: Int64) { self.seq = seq }
}

/// `POST /v1/conversations/{id}/typing`.
public struct TypingRequest: Hashable, Sendable, Codable {
    public var isTyping: Bool
    public init(isTyping: Bool) { self.isTyping = isTyping }
    enum CodingKeys: String, CodingKey { case isTyping = "is_typing" }
}

/// `GET /v1/conversations/{id}/events`: one page of history.
public struct EventPage: Hashable, Sendable, Codable {
    public var conversationID: ConversationID
    /// The store's epoch; when it differs from the one a client resumed with, drop and refetch.
    public var epoch: String
    public var events: [ConversationEvent]
    /// The conversation's newest seq when the page was read.
    public var lastSeq: Int64
    /// More events exist beyond this page in the direction asked.
    public var hasMore: Bool
    public init(conversationID: ConversationID, epoch: String, events: [ConversationEvent], lastSeq: Int64, hasMore: Bool) {
        self.conversationID = conversationID
        self.epoch = epoch
        self.events = events
        self.lastSeq = lastSeq
        self.hasMore = hasMore
    }
    enum CodingKeys: String, CodingKey {
        case conversationID = "conversation_id", epoch, events, lastSeq = "last_seq", hasMore = "has_more"
    }
}

// MARK: - Administration

/// `POST /v1/admin/apps`.
public struct CreateAppRequest: Hashable, Sendable, Codable {
    public var name: String
    public init(name: String) { self.name = name }
}

/// An app with its secret key, returned only when the key is created or rotated.
public struct AppCredentials: Hashable, Sendable, Codable {
    public var app: App
    public var secretKey: String
    public init(app: App, secretKey: String) {
        self.app = app
        self.secretKey = secretKey
    }
    enum CodingKeys: String, CodingKey { case app, secretKey = "secret_key" }
}

/// `GET /v1/admin/apps`.
public struct AppList: Hashable, Sendable, Codable {
    public var apps: [App]
    public init(apps: [App]) { self.apps = apps }
}

/// `POST /v1/admin/apps/{app}/queues` and `PATCH …/queues/{id}`.
public struct QueueRequest: Hashable, Sendable, Codable {
    public var name: String
    public init(name: String) { self.name = name }
}

/// `GET /v1/admin/apps/{app}/queues`.
public struct QueueList: Hashable, Sendable, Codable {
    public var queues: [Queue]
    public init(queues: [Queue]) { self.queues = queues }
}

/// `POST /v1/admin/apps/{app}/agents`.
public struct CreateAgentRequest: Hashable, Sendable, Codable {
    public var name: String
    public var email: String
    /// Nil generates a password, returned once in the answer.
    public var password: String?
    public var role: AgentRole?
    public var queueIDs: [QueueID]?
    /// Default 3.
    public var capacity: Int?
    public init(name: String, email: String, password: String? = nil, role: AgentRole? = nil, queueIDs: [QueueID]? = nil, capacity: Int? = nil) {
        self.name = name
        self.email = email
        self.password = password
        self.role = role
        self.queueIDs = queueIDs
        self.capacity = capacity
    }
    enum CodingKeys: String, CodingKey { case name, email, password, role, queueIDs = "queue_ids", capacity }
}

/// `PATCH /v1/admin/apps/{app}/agents/{id}`: every field optional.
public struct UpdateAgentRequest: Hashable, Sendable, Codable {
    public var name: String?
    public var email: String?
    public var password: String?
    public var role: AgentRole?
    public var queueIDs: [QueueID]?
    public var capacity: Int?
    public var isDisabled: Bool?
    public init(name: String? = nil, email: String? = nil, password: String? = nil, role: AgentRole? = nil, queueIDs: [QueueID]? = nil, capacity: Int? = nil, isDisabled: Bool? = nil) {
        self.name = name
        self.email = email
        self.password = password
        self.role = role
        self.queueIDs = queueIDs
        self.capacity = capacity
        self.isDisabled = isDisabled
    }
    enum CodingKeys: String, CodingKey {
        case name, email, password, role, queueIDs = "queue_ids", capacity, isDisabled = "disabled"
    }
}

/// An agent just created, with the password when the server generated it.
public struct CreatedAgent: Hashable, Sendable, Codable {
    public var agent: Agent
    public var generatedPassword: String?
    public init(agent: Agent, generatedPassword: String?) {
        self.agent = agent
        self.generatedPassword = generatedPassword
    }
    enum CodingKeys: String, CodingKey { case agent, generatedPassword = "generated_password" }
}

/// `GET /v1/admin/apps/{app}/agents`.
public struct AgentList: Hashable, Sendable, Codable {
    public var agents: [Agent]
    public init(agents: [Agent]) { self.agents = agents }
}
