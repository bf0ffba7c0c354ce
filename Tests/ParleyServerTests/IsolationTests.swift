import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

@Suite(.timeLimit(.minutes(2)))
struct IsolationTests {
    /// Every conversation route, as (method, path suffix, body).
    static let routes: [(String, String, String?)] = [
        ("GET", "", nil),
        ("GET", "/events?after=0", nil),
        ("GET", "/events?before=5", nil),
        ("POST", "/messages", #"{"client_message_id":"intruder-1","text":"hi"}"#),
        ("POST", "/end", "{}"),
        ("POST", "/read", #"{"seq":1}"#),
        ("POST", "/typing", #"{"is_typing":true}"#),
        ("POST", "/accept", "{}"),
    ]

    @Test func anotherVisitor_andAnAgentOfAnotherApp_get404OnEveryRouteAndNoEvents() async throws {
        try await withServer { server in
            let owner = try await server.visitor(name: "Owner")
            let ownerSocket = try await server.socket(owner.token)
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "private"), token: owner.token, as: Conversation.self)
            try await ownerSocket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))

            let stranger = try await server.visitor(name: "Stranger")
            let (otherApp, otherQueue) = try await server.otherApp()
            let outsider = try await server.agent(name: "Outsider", app: otherApp.app.id, queues: [otherQueue.id])
            let strangerSocket = try await server.socket(stranger.token)
            let outsiderSocket = try await server.socket(outsider.token)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: outsider.token)

            for (token, who) in [(stranger.token, "visitor"), (outsider.token, "agent of another app")] {
                for (method, suffix, body) in Self.routes {
                    let reply = try await server.http.request(method, "/v1/conversations/\(conversation.id)\(suffix)", body: body.map { Data($0.utf8) }, token: token)
                    // accept is for agents only: a visitor gets 403 before anything is looked up.
                    let expected = (suffix == "/accept" && who == "visitor") ? 403 : 404
                    #expect(reply.status == expected, "\(who) \(method) \(suffix) → \(reply.status)")
                    if expected == 404 { #expect(reply.error?.error.code == "not_found") }
                }
                let list = try await server.http.get("/v1/conversations?view=all", token: token, as: ConversationList.self)
                #expect(!list.conversations.contains { $0.id == conversation.id })
            }
            // A well-formed id that does not exist answers exactly the same.
            let unknown = try await server.http.request("GET", "/v1/conversations/\(ConversationID.generate())", token: stranger.token)
            #expect(unknown.status == 404)

            for socket in [strangerSocket, outsiderSocket] {
                try await socket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
                let refused = try await socket.next { if case .error = $0 { true } else { false } }
                guard case .error(let error) = refused else { throw TestFailure("no error") }
                #expect(error.code == "not_found")
                try await socket.send(.send(.init(ref: "x", conversationID: conversation.id, clientMessageID: "ws-intruder", text: "hi")))
                let sendRefused = try await socket.next { if case .error = $0 { true } else { false } }
                #expect(sendRefused == .error(.init(ref: "x", conversationID: conversation.id, code: "not_found", message: "conversation not found")))
            }

            // The owner keeps talking; an agent of the app takes it; the outsiders hear nothing of it.
            let insider = try await server.agent(name: "Insider")
            let insiderSocket = try await server.socket(insider.token)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: insider.token)
            try await ownerSocket.send(.send(.init(ref: "1", conversationID: conversation.id, clientMessageID: "owner-1", text: "secret")))
            _ = try await ownerSocket.nextEvent(in: conversation.id) { $0.message?.text == "secret" }
            _ = try await insiderSocket.next { if case .conversation(let c) = $0 { c.id == conversation.id } else { false } }
            for socket in [strangerSocket, outsiderSocket] {
                try await Task.sleep(for: .milliseconds(300))
                let leaked = socket.buffer.pending.filter { frame in
                    switch frame {
                    case .event(let event): event.conversationID == conversation.id
                    case .conversation(let summary): summary.id == conversation.id
                    case .typing(let typing): typing.conversationID == conversation.id
                    case .queuePosition(let position): position.conversationID == conversation.id
                    default: false
                    }
                }
                #expect(leaked.isEmpty, "leaked: \(leaked)")
            }
            // Nothing the intruders tried was stored.
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events", token: owner.token, as: EventPage.self)
            let intruders: Set<String?> = [stranger.visitor.id.rawValue, outsider.agent.id.rawValue]
            #expect(!page.events.contains { intruders.contains($0.author.id) })
            for socket in [ownerSocket, strangerSocket, outsiderSocket, insiderSocket] { await socket.close() }
        }
    }

    @Test func adminRoutes_areScopedToTheAdminsApp() async throws {
        try await withServer { server in
            let (otherApp, _) = try await server.otherApp()
            let admin = try await server.demoAgent()
            let plainAgent = try await server.agent(name: "Plain")
            let mine = try await server.http.request("GET", "/v1/admin/apps/\(server.appID)/agents", token: admin.token)
            #expect(mine.status == 200)
            let theirs = try await server.http.request("GET", "/v1/admin/apps/\(otherApp.app.id)/agents", token: admin.token)
            #expect(theirs.status == 404)
            let notAdmin = try await server.http.request("GET", "/v1/admin/apps/\(server.appID)/agents", token: plainAgent.token)
            #expect(notAdmin.status == 403)
            let createApp = try await server.http.send("POST", "/v1/admin/apps", CreateAppRequest(name: "Sneaky"), token: admin.token)
            #expect(createApp.status == 403)
            let visitor = try await server.visitor()
            let asVisitor = try await server.http.request("GET", "/v1/admin/apps/\(server.appID)/queues", token: visitor.token)
            #expect(asVisitor.status == 404)
        }
    }
}
