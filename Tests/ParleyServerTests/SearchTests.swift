import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// `GET /v1/desk/search` over HTTP: what the store finds, with the match named and its words
/// marked, paged, filtered, refused clearly, and only ever within the agent's app.
@Suite(.timeLimit(.minutes(2)))
struct SearchTests {
    @Test(arguments: TestStore.available)
    func messages_rankedSnippetsMarked_pagedWithoutRepeats(_ store: TestStore) async throws {
        try await withServer(on: store) { server in
            let agent = try await server.demoAgent()
            let visitor = try await server.visitor(name: "Zoë Quill")
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let long = String(repeating: "filler words come first here ", count: 4) + "and then the Réfund we talk about"
            for (index, text) in ["My refund is late", long, "refund refund refund, twice over", "no match"].enumerated() {
                _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "m-\(index)", text: text),
                                               token: visitor.token, as: SendMessageResponse.self)
            }
            let first = try await server.http.get("/v1/desk/search?q=REFU&limit=2&sort=relevance", token: agent.token, as: SearchResults.self)
            #expect(first.scope == .messages && first.terms == ["refu"] && first.hits.count == 2)
            let next = try #require(first.nextCursor)
            let second = try await server.http.get("/v1/desk/search?q=REFU&limit=2&sort=relevance&cursor=\(next)", token: agent.token, as: SearchResults.self)
            #expect(try await server.http.request("GET", "/v1/desk/search?q=REFU&cursor=\(next)", token: agent.token).status == 400,
                    "a relevance cursor does not continue a newest-first search")
            // Newest first (the default), paged by position.
            let newestFirst = try await server.http.get("/v1/desk/search?q=refund&limit=2", token: agent.token, as: SearchResults.self)
            let newestRest = try await server.http.get("/v1/desk/search?q=refund&limit=2&cursor=\(try #require(newestFirst.nextCursor))",
                                                       token: agent.token, as: SearchResults.self)
            #expect((newestFirst.hits + newestRest.hits).compactMap(\.match.seq) == [4, 3, 2] && newestRest.nextCursor == nil)
            #expect(second.hits.count == 1 && second.nextCursor == nil)
            let hits = first.hits + second.hits
            #expect(Set(hits.compactMap(\.match.seq)).count == 3, "three messages, none twice")
            #expect(hits.first?.match.snippet == "refund refund refund, twice over", "the most matches rank first")
            for hit in hits {
                #expect(hit.conversation.id == conversation.id && hit.visitor.name == "Zoë Quill" && hit.match.field == "message")
                #expect(hit.match.author?.role == .visitor)
                // Every marked run is a word starting with the term, whatever its case or accent.
                let utf16 = Array(hit.match.snippet.utf16)
                for range in hit.match.highlights {
                    let word = String(decoding: utf16[range.start..<(range.start + range.length)], as: UTF16.self)
                    #expect(word.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil).hasPrefix("refu"), "\(word)")
                }
                #expect(!hit.match.highlights.isEmpty)
            }
            let cut = try #require(hits.first { $0.match.snippet.hasPrefix("…") })
            #expect(cut.match.snippet.hasSuffix("and then the Réfund we talk about"))
        }
    }

    @Test(arguments: TestStore.available)
    func conversations_byVisitorEmail_andFilters(_ store: TestStore) async throws {
        try await withServer(on: store) { server in
            let agent = try await server.demoAgent()
            let visitor = try await server.http.post("/v1/visitor/session", VisitorSessionRequest(
                appID: server.appID, deviceID: "device-grace", name: "Grace", email: "grace.hopper@navy.test"), as: VisitorSession.self)
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let found = try await server.http.get("/v1/desk/search?q=hopper%40navy&scope=conversations", token: agent.token, as: SearchResults.self)
            #expect(found.hits.map(\.conversation.id) == [conversation.id])
            #expect(found.hits.first?.match.field == "visitor.email")
            #expect(found.hits.first?.match.snippet == "grace.hopper@navy.test" && found.hits.first?.match.highlights == [TextRange(start: 6, length: 11)])
            let ended = try await server.http.get("/v1/desk/search?q=hopper&scope=conversations&state=ended", token: agent.token, as: SearchResults.self)
            #expect(ended.hits.isEmpty)

            // Case is ignored for every letter on both stores: "ärger" and "ÄRGER" find "Zoë Ärger".
            let zoe = try await server.http.post("/v1/visitor/session", VisitorSessionRequest(
                appID: server.appID, deviceID: "device-zoe", name: "Zoë Ärger"), as: VisitorSession.self)
            let hers = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "Über uns"), token: zoe.token, as: Conversation.self)
            for (query, field) in [("%C3%A4rger", "visitor.name"), ("%C3%84RGER", "visitor.name"), ("%C3%BCber", "subject"), ("rger", "visitor.name")] {
                let hits = try await server.http.get("/v1/desk/search?q=\(query)&scope=conversations", token: agent.token, as: SearchResults.self).hits
                #expect(hits.map(\.conversation.id) == [hers.id] && hits.first?.match.field == field, "\(query)")
            }
        }
    }

    @Test func refusals_areClear_andNothingCrossesApps() async throws {
        try await withServer { server in
            let agent = try await server.demoAgent()
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "m", text: "secret plans"),
                                           token: visitor.token, as: SendMessageResponse.self)
            for (query, message) in [
                ("", "q: the text to search for"), ("q=%20%20", "q: the text to search for"),
                ("q=\(String(repeating: "a", count: 201))", "q: at most 200 characters"),
                ("q=x&scope=notes", "scope: messages or conversations"), ("q=x&sort=best", "sort: newest or relevance"), ("q=x&state=open", "state: queued, assigned or ended, comma-separated"),
                ("q=x&queue_id=nope", "queue_id: not a queue id"), ("q=x&from=yesterday", "from: an ISO 8601 timestamp"),
                ("q=x&from=2026-01-02T00:00:00Z&to=2026-01-01T00:00:00Z", "to: must be after from"),
                ("q=x&rating=6", "rating: an integer in 1...5"), ("q=x&limit=51", "limit: an integer in 1...50"),
                ("q=x&cursor=bm90LWEtY3Vyc29y", "cursor: not one this search gave"),
            ] {
                let response = try await server.http.request("GET", "/v1/desk/search?\(query)", token: agent.token)
                #expect(response.status == 400, "\(query)")
                #expect(try response.decode(ErrorBody.self).error.message == message, "\(query)")
            }
            // A visitor may not search; another app's agent finds nothing of this one.
            #expect(try await server.http.request("GET", "/v1/desk/search?q=secret", token: visitor.token).status == 403)
            let (otherApp, otherQueue) = try await server.otherApp()
            let outsider = try await server.agent(name: "Outsider", app: otherApp.app.id, queues: [otherQueue.id])
            let theirs = try await server.http.get("/v1/desk/search?q=secret", token: outsider.token, as: SearchResults.self)
            #expect(theirs.hits.isEmpty)
            let ours = try await server.http.get("/v1/desk/search?q=secret", token: agent.token, as: SearchResults.self)
            #expect(ours.hits.map(\.conversation.id) == [conversation.id])
        }
    }
}
