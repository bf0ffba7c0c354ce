import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// Transcript email through a real SMTP server (aiosmtpd): queued durably, retried while the
/// server is down, delivered with the right content, every injected tag escaped in the HTML part.
@Suite(.timeLimit(.minutes(2)), .enabled(if: LocalSMTPServer.isAvailable, "install python3-aiosmtpd"))
struct TranscriptEmailTests {
    static let injected = #"<img src=x onerror=alert(1)> & <script>alert("x")</script>"#

    @Test func emailedTranscript_retriedUntilTheServerIsUp_arrivesEscaped() async throws {
        let smtp = try LocalSMTPServer()
        defer { smtp.stop() }
        try await withServer(configure: {
            $0.smtp = SMTPConfiguration(host: "127.0.0.1", port: smtp.port, security: .none, fromEmail: "support@acme.test", fromName: "Acme Support")
            $0.mailRetryDelays = [0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2, 0.2]
            $0.mailPollInterval = 0.1
        }) { server in
            let visitor = try await server.visitor(name: "<b>Eve</b>")
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let agent = try await server.agent(name: "Ann")
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                           SendMessageRequest(clientMessageID: "v1", text: Self.injected), token: visitor.token, as: SendMessageResponse.self)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                           SendMessageRequest(clientMessageID: "a1", text: "Happy to help, Eve."), token: agent.token, as: SendMessageResponse.self)

            // Bad requests change nothing.
            let path = "/v1/conversations/\(conversation.id)/transcript/email"
            #expect(try await server.http.send("POST", path, EmailTranscriptRequest(email: "not an address"), token: visitor.token).status == 400)
            #expect(try await server.http.send("POST", path, EmailTranscriptRequest(email: "eve@example.com"), token: try await server.visitor().token).status == 404)

            // The SMTP server is down: the request is accepted and kept; attempts fail and are recorded.
            let queued = try await server.http.send("POST", path, EmailTranscriptRequest(email: "Eve@Example.com", timeZone: "Europe/Berlin"), token: visitor.token)
            #expect(queued.status == 202)
            #expect(try queued.decode(TranscriptEmail.self).status == .pending)
            let emails = "/v1/conversations/\(conversation.id)/transcript/emails"
            let failing = try await eventually { try await server.http.get(emails, token: agent.token, as: TranscriptEmailList.self).emails.first }
                where: { $0.attempts >= 1 }
            #expect(failing.status == .pending && failing.lastError != nil, "a refused connection is retried, not given up")

            // The server comes up: the next retry delivers it.
            try await smtp.start()
            let sent = try await eventually { try await server.http.get(emails, token: visitor.token, as: TranscriptEmailList.self).emails.first }
                where: { $0.status == .sent }
            #expect(sent.recipient == "Eve@example.com" && sent.sentAt != nil && sent.lastError == nil)

            let raw = try #require(smtp.messages().first, "aiosmtpd stored the message")
            #expect(smtp.messages().count == 1, "sent once")
            let mail = try ReceivedMail(raw)
            #expect(mail.headers["to"] == "<Eve@example.com>")
            #expect(mail.decoded("from").hasPrefix("Acme Support") && mail.headers["from"]?.hasSuffix("<support@acme.test>") == true)
            #expect(mail.decoded("subject") == "Your conversation with \(server.demo.app.app.name)")
            #expect(mail.text.contains(Self.injected), "the plain text says what was written")
            #expect(mail.text.contains("Happy to help, Eve."))
            #expect(mail.html.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(!mail.html.contains("<img") && !mail.html.contains("<script") && !mail.html.contains("<b>Eve"), "no injected markup")
        }
    }

    @Test func withoutSMTP_orTooOften_refused() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let reply = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transcript/email",
                                                   EmailTranscriptRequest(email: "eve@example.com"), token: visitor.token)
            #expect(reply.status == 409 && reply.error?.error.code == "mail_not_configured")
        }
        try await withServer(configure: {
            $0.smtp = SMTPConfiguration(host: "127.0.0.1", port: 9, security: .none, fromEmail: "support@acme.test")
            $0.mailPollInterval = 60
        }) { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            var replies: [TestHTTP.Reply] = []
            for _ in 0..<6 {
                replies.append(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transcript/email",
                                                          EmailTranscriptRequest(email: "eve@example.com"), token: visitor.token))
            }
            #expect(replies.map(\.status) == [202, 202, 202, 202, 202, 429])
            // The first email leaves the hour's window in about an hour: that is when to try again.
            let retryAfter = try #require(replies.last?.headers["retry-after"].flatMap { Int($0) })
            #expect((3_500...3_600).contains(retryAfter))
            #expect(replies.last?.error?.error.code == "too_many_requests")
        }
    }

    /// Polls `read` until `condition` holds for its value (20 s at most, stretched by ``TestPatience``).
    func eventually<T>(_ read: () async throws -> T?, where condition: (T) -> Bool) async throws -> T {
        var found: T?
        try await waitUntil(timeout: .seconds(20)) {
            found = try await read().flatMap { condition($0) ? $0 : nil }
            return found != nil
        }
        return try #require(found)
    }
}
