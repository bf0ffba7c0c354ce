import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

@Suite(.timeLimit(.minutes(2)))
struct TeamAndCannedResponseTests {
    @Test func cannedResponses_managedByAdmins_readByAgents_scopedToTheApp() async throws {
        try await withServer { server in
            let admin = try await server.demoAgent()
            let agent = try await server.agent(name: "Plain")
            let base = "/v1/admin/apps/\(server.appID)/canned-responses"
            let created = try await server.http.post(base, CannedResponseRequest(shortcut: "refund", title: "Refund policy", text: "Refunds take 5 days."),
                                                     token: admin.token, as: CannedResponse.self)
            #expect(created.shortcut == "refund" && created.appID == server.appID)
            _ = try await server.http.post(base, CannedResponseRequest(shortcut: "hello", title: "Greeting", text: "Hi! How can I help?"), token: admin.token, as: CannedResponse.self)

            // Agents read them, by shortcut; plain agents cannot manage them; visitors cannot read them.
            let list = try await server.http.get("/v1/canned-responses", token: agent.token, as: CannedResponseList.self)
            #expect(list.cannedResponses.map(\.shortcut) == ["hello", "refund"])
            #expect(try await server.http.send("POST", base, CannedResponseRequest(shortcut: "x", title: "x", text: "x"), token: agent.token).status == 403)
            let visitor = try await server.visitor()
            #expect(try await server.http.request("GET", "/v1/canned-responses", token: visitor.token).status == 403)

            // Rules: unique shortcut per app, its alphabet, required fields, message limits.
            let duplicate = try await server.http.send("POST", base, CannedResponseRequest(shortcut: "refund", title: "Again", text: "x"), token: admin.token)
            #expect(duplicate.status == 409 && duplicate.error?.error.code == "duplicate")
            for bad in [CannedResponseRequest(shortcut: "Has Space", title: "t", text: "x"), CannedResponseRequest(shortcut: "ok", title: "", text: "x"),
                        CannedResponseRequest(shortcut: "ok", title: "t"), CannedResponseRequest(shortcut: "ok", title: "t", text: "  ")] {
                #expect(try await server.http.send("POST", base, bad, token: admin.token).status == 400)
            }

            // Edit and delete; another app's admin sees none of it.
            let edited = try await server.http.send("PATCH", "\(base)/\(created.id)", CannedResponseRequest(text: "Refunds take 3 days."), token: admin.token)
            #expect(try edited.decode(CannedResponse.self).text == "Refunds take 3 days.")
            #expect(try edited.decode(CannedResponse.self).shortcut == "refund")
            let clash = try await server.http.send("PATCH", "\(base)/\(created.id)", CannedResponseRequest(shortcut: "hello"), token: admin.token)
            #expect(clash.status == 409)
            let (otherApp, _) = try await server.otherApp()
            let otherAdmin = try await server.agent(name: "Other admin", app: otherApp.app.id, role: .admin)
            #expect(try await server.http.request("DELETE", "/v1/admin/apps/\(otherApp.app.id)/canned-responses/\(created.id)", token: otherAdmin.token).status == 404)
            #expect(try await server.http.get("/v1/canned-responses", token: otherAdmin.token, as: CannedResponseList.self).cannedResponses.isEmpty)
            #expect(try await server.http.request("DELETE", "\(base)/\(created.id)", token: admin.token).status == 204)
            #expect(try await server.http.request("DELETE", "\(base)/\(created.id)", token: admin.token).status == 404)
            #expect(try await server.http.get("/v1/canned-responses", token: agent.token, as: CannedResponseList.self).cannedResponses.map(\.shortcut) == ["hello"])
        }
    }

    @Test func personalCannedResponses_areTheAgentsOwn_listedBeforeTheTeams() async throws {
        try await withServer { server in
            let admin = try await server.demoAgent()
            let ann = try await server.agent(name: "Ann")
            let bob = try await server.agent(name: "Bob")
            let team = try await server.http.post("/v1/admin/apps/\(server.appID)/canned-responses",
                                                  CannedResponseRequest(shortcut: "refund", title: "Refund policy", text: "Refunds take 5 days."),
                                                  token: admin.token, as: CannedResponse.self)
            // Ann keeps her own, even under a team shortcut; the owner is named, the team's has none.
            let mine = try await server.http.post("/v1/canned-responses", CannedResponseRequest(shortcut: "refund", title: "My refund", text: "I'll sort it today."),
                                                  token: ann.token, as: CannedResponse.self)
            #expect(mine.ownerID == ann.agent.id && team.ownerID == nil)
            let list = try await server.http.get("/v1/canned-responses", token: ann.token, as: CannedResponseList.self).cannedResponses
            #expect(list.map(\.id) == [mine.id, team.id], "her own first")
            // Bob and the admin's team list never see it.
            #expect(try await server.http.get("/v1/canned-responses", token: bob.token, as: CannedResponseList.self).cannedResponses.map(\.id) == [team.id])
            #expect(try await server.http.get("/v1/admin/apps/\(server.appID)/canned-responses", token: admin.token, as: CannedResponseList.self)
                .cannedResponses.map(\.id) == [team.id])
            // Her shortcuts are unique in her set; she cannot change the team's or Bob's through her routes.
            let twice = try await server.http.send("POST", "/v1/canned-responses", CannedResponseRequest(shortcut: "refund", title: "Again", text: "x"), token: ann.token)
            #expect(twice.status == 409 && twice.error?.error.code == "duplicate")
            #expect(try await server.http.send("POST", "/v1/canned-responses", CannedResponseRequest(shortcut: "Bad Shortcut", title: "t", text: "x"), token: ann.token).status == 400)
            #expect(try await server.http.send("PATCH", "/v1/canned-responses/\(team.id)", CannedResponseRequest(text: "Mine now"), token: ann.token).status == 404)
            #expect(try await server.http.send("PATCH", "/v1/canned-responses/\(mine.id)", CannedResponseRequest(text: "Bob's now"), token: bob.token).status == 404)
            #expect(try await server.http.request("DELETE", "/v1/canned-responses/\(mine.id)", token: bob.token).status == 404)
            #expect(try await server.http.request("DELETE", "/v1/admin/apps/\(server.appID)/canned-responses/\(mine.id)", token: admin.token).status == 404)
            let edited = try await server.http.send("PATCH", "/v1/canned-responses/\(mine.id)", CannedResponseRequest(text: "Sorted within the hour."), token: ann.token)
            #expect(try edited.decode(CannedResponse.self).text == "Sorted within the hour.")
            let visitor = try await server.visitor()
            #expect(try await server.http.send("POST", "/v1/canned-responses", CannedResponseRequest(shortcut: "v", title: "v", text: "v"), token: visitor.token).status == 403)
            #expect(try await server.http.request("DELETE", "/v1/canned-responses/\(mine.id)", token: ann.token).status == 204)
            #expect(try await server.http.get("/v1/canned-responses", token: ann.token, as: CannedResponseList.self).cannedResponses.map(\.id) == [team.id])
        }
    }

    @Test func teamChanges_reachEveryDeskOfTheApp() async throws {
        try await withServer { server in
            let ann = try await server.agent(name: "Ann")
            let bob = try await server.agent(name: "Bob")
            let desk = try await server.socket(ann.token)
            // (Her own desk's opening is a change too: wait for the ones naming Bob.)
            func change() async throws -> ServerFrame {
                try await desk.next { if case .team(let change) = $0 { change.agentID == bob.agent.id } else { false } }
            }
            // Bob opens a desk, goes online, closes it: Ann's desk hears each, naming him.
            let bobs = try await server.socket(bob.token)
            #expect(try await change() == .team(TeamChange(agentID: bob.agent.id)))
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: bob.token)
            #expect(try await change() == .team(TeamChange(agentID: bob.agent.id)))
            let team = try await server.http.get("/v1/team", token: ann.token, as: Team.self)
            let member = try #require(team.agents.first { $0.id == bob.agent.id })
            #expect(member.availability == .online && member.connected)
            await bobs.close()
            #expect(try await change() == .team(TeamChange(agentID: bob.agent.id)))
            await desk.close()
        }
    }

    @Test func team_showsAvailabilityLoadAndWaiting_toAnyAgentOfTheApp() async throws {
        try await withServer { server in
            let grace = try await server.agent(name: "Grace", capacity: 2)
            let socket = try await server.socket(grace.token)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: grace.token)
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            #expect(conversation.agentID == grace.agent.id)

            let plain = try await server.agent(name: "Plain")
            let team = try await server.http.get("/v1/team", token: plain.token, as: Team.self)
            let member = try #require(team.agents.first { $0.id == grace.agent.id })
            #expect(member.availability == .online && member.connected && member.activeConversations == 1 && member.capacity == 2)
            #expect(team.agents.first { $0.id == plain.agent.id }?.connected == false)
            #expect(team.queues.map(\.id) == [server.demo.queue.id] && team.queues[0].waiting == 0)
            // Emails stay on the admin pages.
            let raw = try await server.http.request("GET", "/v1/team", token: plain.token)
            #expect(!String(decoding: raw.body, as: UTF8.self).contains("@"))
            #expect(try await server.http.request("GET", "/v1/team", token: visitor.token).status == 403)
            await socket.close()
        }
    }

    @Test func visitorProfile_andEarlierConversations_forAgentsOfTheApp() async throws {
        try await withServer { server in
            let session = try await server.http.post("/v1/visitor/session", VisitorSessionRequest(
                appID: server.appID, deviceID: "device-profile-1", name: "Ada", email: "ada@example.com", attributes: ["plan": "pro"]), as: VisitorSession.self)
            let first = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "First"), token: session.token, as: Conversation.self)
            _ = try await server.http.post("/v1/conversations/\(first.id)/end", [String: String](), token: session.token, as: Conversation.self)
            let second = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "Second"), token: session.token, as: Conversation.self)

            let agent = try await server.demoAgent()
            let profile = try await server.http.get("/v1/visitors/\(session.visitor.id)", token: agent.token, as: Visitor.self)
            #expect(profile.name == "Ada" && profile.email == "ada@example.com" && profile.attributes == ["plan": "pro"] && profile.deviceID == "device-profile-1")
            let earlier = try await server.http.get("/v1/visitors/\(session.visitor.id)/conversations", token: agent.token, as: ConversationList.self)
            #expect(earlier.conversations.map(\.id) == [second.id, first.id])

            let (otherApp, _) = try await server.otherApp()
            let stranger = try await server.agent(name: "Stranger", app: otherApp.app.id)
            #expect(try await server.http.request("GET", "/v1/visitors/\(session.visitor.id)", token: stranger.token).status == 404)
            #expect(try await server.http.request("GET", "/v1/visitors/\(session.visitor.id)/conversations", token: stranger.token).status == 404)
            #expect(try await server.http.request("GET", "/v1/visitors/\(session.visitor.id)", token: session.token).status == 403)
            #expect(try await server.http.request("GET", "/v1/visitors/vis_nonsense", token: agent.token).status == 404)
        }
    }

    @Test func resetPassword_returnsANewOne_once_andEndsTheOldSessions() async throws {
        try await withServer { server in
            let admin = try await server.demoAgent()
            let agent = try await server.agent(name: "Forgetful")
            let reply = try await server.http.post("/v1/admin/apps/\(server.appID)/agents/\(agent.agent.id)/reset-password", [String: String](),
                                                   token: admin.token, as: CreatedAgent.self)
            let password = try #require(reply.generatedPassword)
            #expect(password.count == 16)
            #expect(try await server.http.request("GET", "/v1/agent/me", token: agent.token).status == 401)
            let again = try await server.http.post("/v1/agent/login", AgentLoginRequest(email: agent.agent.email, password: password), as: AgentSession.self)
            #expect(again.agent.id == agent.agent.id)
            let plain = try await server.agent(name: "Plain")
            #expect(try await server.http.send("POST", "/v1/admin/apps/\(server.appID)/agents/\(agent.agent.id)/reset-password", [String: String](), token: plain.token).status == 403)
        }
    }
}
