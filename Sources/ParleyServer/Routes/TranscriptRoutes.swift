import Foundation
import Hummingbird
import NIOCore
import ParleyCore

extension ParleyServer {
    /// `GET /v1/conversations/:id/transcript?format=html|text&tz=Europe/Berlin&lang=de`: the
    /// conversation as a standalone HTML document (save, print, share) or plain text, for its
    /// visitor and the app's agents.
    func addTranscriptRoutes(to router: Router<ParleyRequestContext>) {
        router.get("v1/conversations/:id/transcript") { request, context -> Response in
            let caller = try await self.authenticator.caller(of: request)
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
            let id = try Self.conversationID(context)
            let transcript = try await self.conversations.transcript(id, caller: caller)
            var headers = HTTPFields()
            headers[.cacheControl] = "no-store"
            headers[.init("X-Content-Type-Options")!] = "nosniff"
            let body: String
            if format == "html" {
                body = transcript.html(options: options)
                headers[.contentType] = "text/html; charset=utf-8"
                // A saved transcript runs nothing and loads nothing.
                headers[.contentSecurityPolicy] = "default-src 'none'; style-src 'unsafe-inline'"
                headers[.contentDisposition] = "inline; filename=\"transcript-\(id).html\""
            } else {
                body = transcript.plainText(options: options)
                headers[.contentType] = "text/plain; charset=utf-8"
                headers[.contentDisposition] = "inline; filename=\"transcript-\(id).txt\""
            }
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(string: body)))
        }

        // BoldChat's email transcript: queued durably, sent and retried by the mailer.
        router.post("v1/conversations/:id/transcript/email") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            let body = try await request.decodeJSON(EmailTranscriptRequest.self, context: context)
            let email = try await self.conversations.emailTranscript(
                try Self.conversationID(context), body, caller: caller, mailEnabled: self.configuration.smtp != nil)
            return JSONResponse(email, status: .accepted)
        }

        router.get("v1/conversations/:id/transcript/emails") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            return JSONResponse(TranscriptEmailList(emails: try await self.conversations.transcriptEmails(try Self.conversationID(context), caller: caller)))
        }
    }
}
