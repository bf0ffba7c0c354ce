import Foundation
import Hummingbird
import NIOCore
import ParleyCore

/// A conversation as a standalone document (save, print, share), for its visitor and the app's
/// agents, and the same by email.
struct TranscriptController {
    let conversations: ConversationService
    /// Whether the server has SMTP; without it, asking for a transcript email is refused.
    let isMailEnabled: Bool

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        // `?format=html|text&tz=Europe/Berlin&lang=de`.
        router.on(.transcripts.document) { request, context -> Response in
            let caller = try context.requireCaller()
            let query = request.uri.queryParameters
            let format = query.get("format") ?? "html"
            guard format == "html" || format == "text" else { throw APIError.badRequest("format: html or text") }
            var options = Transcript.Options()
            if let zone = query.get("tz") {
                guard let timeZone = TimeZone(identifier: zone) else { throw APIError.badRequest("tz: an IANA time zone such as Europe/Berlin") }
                options.timeZone = timeZone
            }
            if let language = query.get("lang") {
                guard LocalizedText.isWellFormedTag(language) else { throw APIError.badRequest("lang: a language tag such as en or pt-BR") }
                options.language = language
            }
            let id = try context.conversationID()
            let transcript = try await conversations.transcript(id, caller: caller)
            var headers = HTTPFields()
            headers[.cacheControl] = "no-store"
            headers[.init("X-Content-Type-Options")!] = "nosniff"
            let body: String
            if format == "html" {
                body = transcript.html(options: options)
                headers[.contentType] = "text/html; charset=utf-8"
                // A saved transcript runs nothing, loads nothing, and is framed by no page (clickjacking).
                headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'"
                headers[.contentDisposition] = "inline; filename=\"transcript-\(id).html\""
            } else {
                body = transcript.plainText(options: options)
                headers[.contentType] = "text/plain; charset=utf-8"
                headers[.contentDisposition] = "inline; filename=\"transcript-\(id).txt\""
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }

        // BoldChat's email transcript: queued durably, sent and retried by the mailer.
        router.on(.transcripts.email) { request, context in
            let caller = try context.requireCaller()
            let body = try await request.decodeJSON(EmailTranscriptRequest.self, context: context)
            let email = try await conversations.emailTranscript(try context.conversationID(), body, caller: caller, mailEnabled: isMailEnabled)
            return JSONResponse(email, status: .accepted)
        }

        router.on(.transcripts.emails) { _, context in
            let caller = try context.requireCaller()
            return JSONResponse(TranscriptEmailList(emails: try await conversations.transcriptEmails(try context.conversationID(), caller: caller)))
        }
    }
}
