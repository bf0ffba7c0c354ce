import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// Page push (an agent shows the visitor a web page) and the app's link policy.
@Suite(.timeLimit(.minutes(2)))
struct PagePushTests {
    /// A visitor's conversation assigned to an online agent, with the visitor's socket subscribed.
    private func assigned(_ server: TestServer) async throws -> (agent: AgentSession, visitor: VisitorSession, socket: TestSocket, conversation: Conversation, sockets: [TestSocket]) {
        let agent = try await server.agent(name: "Grace")
        let agentSocket = try await server.socket(agent.token)
        _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agent.token)
        let visitor = try await server.visitor(name: "Ada")
        let socket = try await server.socket(visitor.token)
        let opened = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
        try await socket.send(.subscribe(.init(conversationID: opened.id, afterSeq: 0)))
        _ = try await agentSocket.next { if case .conversation(let c) = $0 { c.id == opened.id && c.state == .assigned } else { false } }
        return (agent, visitor, socket, opened, [agentSocket, socket])
    }

    @Test func theAssignedAgentPushesAPage_theVisitorGetsItInOrder_andAResendStoresNothing() async throws {
        try await withServer { server in
            let (agent, visitor, socket, conversation, sockets) = try await assigned(server)
            let push = PushPageRequest(clientMessageID: "page-1", url: "https://help.example.com/returns?ref=chat#top", title: "Returns")
            let reply = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/pages", push, token: agent.token)
            #expect(reply.status == 201)
            let stored = try reply.decode(SendMessageResponse.self)
            #expect(!stored.duplicate)
            #expect(stored.event.body == .pagePushed(PagePush(clientMessageID: "page-1", url: push.url, title: "Returns")))
            #expect(stored.event.author.id == agent.agent.id.rawValue)

            // Live, and in the history, as the same event.
            let live = try await socket.nextEvent(in: conversation.id) { if case .pagePushed = $0.body { true } else { false } }
            #expect(live == stored.event)
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=0", token: visitor.token, as: EventPage.self)
            #expect(page.events.last == stored.event)

            // The same push again is answered with the stored event; the id for something else is refused.
            let again = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/pages", push, token: agent.token)
            #expect(again.status == 200)
            #expect(try again.decode(SendMessageResponse.self) == SendMessageResponse(duplicate: true, event: stored.event))
            let other = PushPageRequest(clientMessageID: "page-1", url: "https://help.example.com/other", title: "Other")
            let conflict = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/pages", other, token: agent.token)
            #expect(conflict.status == 409)
            let after = try await server.http.get("/v1/conversations/\(conversation.id)", token: visitor.token, as: Conversation.self)
            #expect(after.lastSeq == stored.event.seq)

            // A transcript lists the page with its address.
            let transcript = Transcript(conversation: after, events: page.events)
            #expect(transcript.plainText().contains("[page: Returns] https://help.example.com/returns?ref=chat#top"))
            for socket in sockets { await socket.close() }
        }
    }

    @Test func refusals_sayWhy_andStoreNothing() async throws {
        try await withServer { server in
            let (agent, visitor, _, conversation, sockets) = try await assigned(server)
            let path = "/v1/conversations/\(conversation.id)/pages"
            let before = try await server.http.get("/v1/conversations/\(conversation.id)", token: visitor.token, as: Conversation.self)
            let bad: [(String, String, String)] = [
                ("javascript:alert(1)", "Hi", "url"),
                ("https://bank.example@evil.example/", "Hi", "url"),
                ("/relative/path", "Hi", "url"),
                ("https://help.example.com/a b", "Hi", "url"),
                ("https://help.example.com/", "", "title"),
                ("https://help.example.com/", "two\nlines", "title"),
                ("https://help.example.com/" + String(repeating: "a", count: Limits.maxURLLength), "Long", "url"),
            ]
            for (index, (url, title, field)) in bad.enumerated() {
                let reply = try await server.http.send("POST", path, PushPageRequest(clientMessageID: "bad-\(index)", url: url, title: title), token: agent.token)
                #expect(reply.status == 400, "\(url) \(title)")
                #expect(reply.error?.error.message.hasPrefix("\(field):") == true, "\(url) \(title): \(reply.error?.error.message ?? "")")
            }
            // A visitor cannot push; another agent of the app, not assigned, cannot either; another app's agent sees nothing.
            let fine = PushPageRequest(clientMessageID: "p", url: "https://help.example.com/", title: "Help")
            #expect(try await server.http.send("POST", path, fine, token: visitor.token).status == 403)
            let bystander = try await server.agent(name: "Alan")
            let refused = try await server.http.send("POST", path, fine, token: bystander.token)
            #expect(refused.status == 409 && refused.error?.error.code == "invalid_state")
            let (otherApp, _) = try await server.otherApp()
            let stranger = try await server.agent(name: "Stranger", app: otherApp.app.id)
            #expect(try await server.http.send("POST", path, fine, token: stranger.token).status == 404)

            let after = try await server.http.get("/v1/conversations/\(conversation.id)", token: visitor.token, as: Conversation.self)
            #expect(after.lastSeq == before.lastSeq)
            for socket in sockets { await socket.close() }
        }
    }

    @Test func linkPolicy_defaultsUntilSet_thenVisitorsReadWhatAdminsSet_badInputChangesNothing() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            #expect(try await server.http.get("/v1/link-policy", token: visitor.token, as: LinkPolicy.self) == .defaults)

            let admin = try await server.agent(name: "Admin", role: .admin)
            let path = "/v1/admin/apps/\(server.appID)/link-policy"
            let policy = LinkPolicy(insideHosts: ["help.example.com", "*.docs.example.com"], otherLinks: .block, embedOrigins: ["https://www.example.com"])
            let set = try await server.http.send("PUT", path, policy, token: admin.token)
            #expect(set.status == 200)
            #expect(try await server.http.get("/v1/link-policy", token: visitor.token, as: LinkPolicy.self) == policy)
            #expect(try await server.http.get(path, token: admin.token, as: LinkPolicy.self) == policy)

            for (bad, field) in [
                (LinkPolicy(insideHosts: ["https://help.example.com"]), "inside_hosts"),
                (LinkPolicy(insideHosts: ["Help.Example.com"]), "inside_hosts"),
                (LinkPolicy(insideHosts: ["help.example.com/path"]), "inside_hosts"),
                (LinkPolicy(embedOrigins: ["https://www.example.com/page"]), "embed_origins"),
                (LinkPolicy(embedOrigins: ["*"]), "embed_origins"),
            ] {
                let reply = try await server.http.send("PUT", path, bad, token: admin.token)
                #expect(reply.status == 400 && reply.error?.error.message.hasPrefix("\(field):") == true, "\(bad)")
            }
            #expect(try await server.http.get("/v1/link-policy", token: visitor.token, as: LinkPolicy.self) == policy)

            // Plain agents read it like visitors but cannot set it.
            let agent = try await server.agent(name: "Agent")
            #expect(try await server.http.send("PUT", path, LinkPolicy.defaults, token: agent.token).status == 403)
        }
    }
}
