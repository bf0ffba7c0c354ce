import Foundation
import ParleyCore
import ParleyStore

extension ConversationService {
    /// How many transcript emails a conversation may ask for in an hour: enough for typos, too few
    /// to turn the server into a relay.
    static let transcriptEmailsPerHour = 5

    /// Queues the conversation's transcript for an address the caller gives; the mailer sends it
    /// and retries. The transcript is taken now: what was said up to this request.
    /// - Throws: 400 for a bad address, zone or language; 404 as usual; 409 `mail_not_configured`
    ///   without SMTP; 429 past ``transcriptEmailsPerHour``.
    func emailTranscript(_ id: ConversationID, _ request: EmailTranscriptRequest, caller: Caller, mailEnabled: Bool) async throws -> TranscriptEmail {
        guard let recipient = EmailAddress.normalize(request.email) else { throw APIError.badRequest("email: an address such as ann@example.com") }
        var options = Transcript.Options()
        if let zone = request.timeZone {
            guard let timeZone = TimeZone(identifier: zone) else { throw APIError.badRequest("time_zone: an IANA zone such as Europe/Berlin") }
            options.timeZone = timeZone
        }
        if let language = request.language {
            guard LocalizedText.isWellFormedTag(language) else { throw APIError.badRequest("language: a tag such as en or pt-BR") }
            options.language = language
        }
        let transcript = try await transcript(id, caller: caller)
        guard mailEnabled else { throw APIError.conflict("mail_not_configured", "this server sends no email (parleyd --smtp)") }
        let app = transcript.conversation.appID
        let hourAgo = clock.now().addingTimeInterval(-3_600)
        let lastHour = try await store.mail(conversation: id, app: app).map(\.createdAt).filter { $0 > hourAgo }.sorted()
        if lastHour.count >= Self.transcriptEmailsPerHour {
            // The next one is allowed when the oldest of the last hour's leaves the window.
            let wait = Int(lastHour[lastHour.count - Self.transcriptEmailsPerHour].timeIntervalSince(hourAgo).rounded(.up))
            throw APIError.tooManyRequests("at most \(Self.transcriptEmailsPerHour) transcript emails per conversation an hour", retryAfter: max(1, wait))
        }
        let appName = try await store.app(app)?.app.name ?? "Support"
        options.title = "Your conversation with \(appName)"
        let now = clock.now()
        let record = TranscriptEmail(id: "mail_" + UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""), conversationID: id,
                                     recipient: recipient, status: .pending, attempts: 0, lastError: nil, createdAt: now, sentAt: nil)
        try await store.enqueueMail(OutgoingMail(record: record, appID: app, subject: options.title,
                                                 text: transcript.plainText(options: options), html: transcript.html(options: options)))
        return record
    }

    /// The transcript emails asked for a conversation and how their sending went.
    func transcriptEmails(_ id: ConversationID, caller: Caller) async throws -> [TranscriptEmail] {
        let conversation = try await visible(id, to: caller)
        return try await store.mail(conversation: id, app: conversation.appID)
    }
}
