import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// `GET /v1/conversations/:id/transcript`: the whole conversation as plain text or a standalone
/// HTML document, for its visitor and the app's agents, with every written thing escaped.
@Suite(.timeLimit(.minutes(2)))
struct TranscriptTests {
    static let injected = #""><img src=x onerror=alert(1)> & <script>alert("x")</script>"#

    @Test func visitorAndAgent_getTextAndHTML_userTextEscaped_notesLeftOut() async throws {
        try await withServer { server in
            let visitor = try await server.visitor(name: "<b>Mallory</b>")
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "<i>subject</i>"),
                                                          token: visitor.token, as: Conversation.self)
            let agent = try await server.agent(name: "Ann")
            let accepted = try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token)
            #expect(accepted.status == 200)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                           SendMessageRequest(clientMessageID: "v1", text: Self.injected), token: visitor.token, as: SendMessageResponse.self)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                           SendMessageRequest(clientMessageID: "a1", text: "Hello, how can I help?"), token: agent.token, as: SendMessageResponse.self)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/notes", AddNoteRequest(clientNoteID: "n1", text: "secret note"),
                                           token: agent.token, as: InternalNote.self)

            let html = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/transcript", token: visitor.token)
            #expect(html.status == 200)
            #expect(html.headers["content-type"]?.hasPrefix("text/html") == true)
            #expect(html.headers["content-security-policy"] == "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'")
            let document = String(decoding: html.body, as: UTF8.self)
            #expect(document.contains("&lt;img src=x onerror=alert(1)&gt;"))
            #expect(document.contains("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;") || document.contains("&lt;script&gt;alert(&#34;x&#34;)&lt;/script&gt;"))
            #expect(!document.contains("<img"), "no injected tag")
            #expect(!document.contains("<script"), "no script at all")
            #expect(!document.contains("<b>Mallory"), "the visitor's name is escaped too")
            #expect(!document.contains("secret note"), "internal notes are never in a transcript")
            #expect(document.contains("Hello, how can I help?"))

            let text = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/transcript?format=text&tz=Europe/Berlin",
                                                     token: agent.token)
            #expect(text.status == 200)
            #expect(text.headers["content-type"] == "text/plain; charset=utf-8")
            let plain = String(decoding: text.body, as: UTF8.self)
            let visitorLine = try #require(plain.range(of: Self.injected), "plain text keeps the text as written")
            let agentLine = try #require(plain.range(of: "Hello, how can I help?"))
            #expect(visitorLine.lowerBound < agentLine.lowerBound, "in order")
            #expect(!plain.contains("secret note"))
        }
    }

    @Test func anotherVisitor_badFormatOrZone_areRefused() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let stranger = try await server.visitor()
            #expect(try await server.http.request("GET", "/v1/conversations/\(conversation.id)/transcript", token: stranger.token).status == 404)
            #expect(try await server.http.request("GET", "/v1/conversations/\(conversation.id)/transcript").status == 401)
            for query in ["format=pdf", "tz=Mars/Olympus", "lang=%3Cx%3E"] {
                let reply = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/transcript?\(query)", token: visitor.token)
                #expect(reply.status == 400, "\(query)")
            }
        }
    }
}
