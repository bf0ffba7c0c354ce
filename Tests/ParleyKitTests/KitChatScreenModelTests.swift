import Foundation
import ParleyCore
import ParleyKit
import ParleyServer
import ParleyTestSupport
import Testing

/// The chat screen walked end to end by ``ChatScreenModel`` against a real server: what a UI
/// renders, screen by screen (issue 7).
@Suite(.timeLimit(.minutes(2)))
struct KitChatScreenModelTests {
    static let email = FormField(key: "email", kind: .email, isRequired: true, label: ["en": "Email"])
    static let score = FormField(key: "score", kind: .rating, isRequired: true, label: ["en": "How did we do?"])

    @Test func preChat_queued_chatting_postChat_ended() async throws {
        try await withServer { server in
            let forms = "/v1/admin/apps/\(server.appID)/forms"
            #expect(try await server.http.send("PUT", "\(forms)/pre_chat", Form(kind: .preChat, fields: [Self.email]), token: server.adminToken).status == 200)
            #expect(try await server.http.send("PUT", "\(forms)/post_chat", Form(kind: .postChat, fields: [Self.score]), token: server.adminToken).status == 200)
            let kit = KitHarness(server: server)
            let agent = try await kit.onlineAgent(name: "Ann")
            let visitor = kit.visitor(name: "Vee")
            try await visitor.start()
            let model = ChatScreenModel(client: visitor)
            let screens = await model.screens()

            await model.start()
            _ = try await first(screens) { if case .preChat = $0 { true } else { false } }
            // A bad email is refused on the device, by the same rules as the server's; nothing is sent.
            await model.submitPreChat(["email": .text("nope")])
            guard case .preChat(let refused) = await model.screen else { throw TestFailure("expected the pre-chat form") }
            #expect(refused.errors?["email"] == .invalidEmail)
            #expect(await model.conversationID == nil)

            await model.submitPreChat(["email": .text("vee@example.com")])
            _ = try await first(screens) { $0 == .chatting }  // the agent was online: queued, then assigned
            let id = try #require(await model.conversationID)
            try await agent.end(id)
            _ = try await first(screens) { if case .postChat = $0 { true } else { false } }
            await model.submitPostChat(["score": .integer(5)])
            _ = try await first(screens) { $0 == .ended }

            let stored = try await agent.forms(in: id)
            #expect(stored.map(\.kind) == [.preChat, .postChat])
            #expect(stored.first?.answers == ["email": .text("vee@example.com")])
            #expect(stored.last?.answers == ["score": .integer(5)])
            await model.stop()
            await visitor.stop()
            await agent.stop()
        }
    }

    @Test func nobodyOnline_unavailableForm_offlineSubmitted() async throws {
        try await withServer { server in
            let unavailable = Form(kind: .unavailable, fields: [Self.email, FormField(key: "message", kind: .multiLine, isRequired: true, label: ["en": "Message"])])
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/forms/unavailable", unavailable, token: server.adminToken).status == 200)
            let visitor = KitHarness(server: server).visitor()
            try await visitor.start()
            let model = ChatScreenModel(client: visitor)
            let screens = await model.screens()
            await model.start()
            let shown = try await first(screens) { if case .unavailable(.noAgentOnline, _?) = $0 { true } else { false } }
            guard case .unavailable(_, let form?) = shown else { throw TestFailure("no form") }
            #expect(form.form.fields.map(\.key) == ["email", "message"])
            await model.submitOfflineForm(["email": .text("vee@example.com"), "message": .text("Call me back, please.")])
            _ = try await first(screens) { $0 == .offlineSubmitted }
            let id = try #require(await model.conversationID)
            let conversation = try await visitor.conversation(id)
            #expect(await conversation.state == .queued, "waiting for an agent to answer later")
            await model.stop()
            await visitor.stop()
        }
    }
}
