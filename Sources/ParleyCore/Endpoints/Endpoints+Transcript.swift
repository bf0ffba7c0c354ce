import Foundation

extension Endpoint {
    /// `/v1/conversations/:id/transcript…`: a conversation as a document, and by email.
    public static var transcripts: TranscriptEndpoints { TranscriptEndpoints() }
}

/// The transcript endpoints. `:id` is a ``ConversationID``.
public struct TranscriptEndpoints: Sendable {
    /// `GET /v1/conversations/:id/transcript?format=html|text&tz=&lang=`: an HTML or plain-text
    /// document, not JSON.
    public var document: Endpoint<Void, String> { .init(.get, "/v1/conversations/:id/transcript") }
    /// `POST /v1/conversations/:id/transcript/email`: queues a transcript email (202).
    public var email: Endpoint<EmailTranscriptRequest, TranscriptEmail> { .init(.post, "/v1/conversations/:id/transcript/email") }
    /// `GET /v1/conversations/:id/transcript/emails`: the transcript emails asked for, and how they fared.
    public var emails: Endpoint<Void, TranscriptEmailList> { .init(.get, "/v1/conversations/:id/transcript/emails") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] { [document.erased, email.erased, emails.erased] }
}
