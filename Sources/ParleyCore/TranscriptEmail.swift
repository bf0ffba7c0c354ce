import Foundation

/// `POST /v1/conversations/{id}/transcript/email`: send the transcript to an address the visitor
/// (or an agent) gives.
public struct EmailTranscriptRequest: Hashable, Sendable, Codable {
    public var email: String
    /// The zone the transcript's times are written in (IANA). Default UTC.
    public var timeZone: String?
    /// The transcript's language tag. Default `en`.
    public var language: String?

    public init(email: String, timeZone: String? = nil, language: String? = nil) {
        self.email = email
        self.timeZone = timeZone
        self.language = language
    }

    enum CodingKeys: String, CodingKey { case email, timeZone = "time_zone", language }
}

/// A transcript email and how its sending went: queued, retried, sent or given up.
public struct TranscriptEmail: Hashable, Sendable, Codable {
    public enum Status: String, Hashable, Sendable, Codable {
        /// Waiting for its first or next attempt.
        case pending
        case sent
        /// Given up: the server refused it for good, or every retry failed.
        case failed
    }

    public var id: String
    public var conversationID: ConversationID
    public var recipient: String
    public var status: Status
    public var attempts: Int
    /// Why the last attempt failed.
    public var lastError: String?
    public var createdAt: Date
    public var sentAt: Date?

    public init(id: String, conversationID: ConversationID, recipient: String, status: Status, attempts: Int, lastError: String?,
                createdAt: Date, sentAt: Date?) {
        self.id = id
        self.conversationID = conversationID
        self.recipient = recipient
        self.status = status
        self.attempts = attempts
        self.lastError = lastError
        self.createdAt = createdAt
        self.sentAt = sentAt
    }

    enum CodingKeys: String, CodingKey {
        case id, conversationID = "conversation_id", recipient, status, attempts, lastError = "last_error"
        case createdAt = "created_at", sentAt = "sent_at"
    }
}

/// `GET /v1/conversations/{id}/transcript/emails`.
public struct TranscriptEmailList: Hashable, Sendable, Codable {
    public var emails: [TranscriptEmail]
    public init(emails: [TranscriptEmail]) { self.emails = emails }
}
