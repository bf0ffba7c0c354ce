import Foundation
import ParleyCore
import ParleyKit
import ParleyServer
import ParleyTestSupport
import Testing

/// What the SDK reads before a chat: the appearance (the server's, overridden by the app's own
/// settings) and the queue's availability.
@Suite(.timeLimit(.minutes(2)))
struct KitLifecycleTests {
    @Test func appearance_appSettingsWinOverTheServers_availabilityFollowsAgents() async throws {
        try await withServer { server in
            let served = Appearance(title: "Acme help", welcomeMessage: ["en": "Hi!", "fr": "Bonjour !"], themeColor: "#112233")
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/appearance", served, token: server.adminToken).status == 200)
            let kit = KitHarness(server: server)
            let visitor = kit.visitor(appearance: Appearance(themeColor: "#FF0000", visitorDisplayName: "Me"))
            try await visitor.start()
            let look = try await visitor.appearance()
            #expect(look == Appearance(title: "Acme help", welcomeMessage: ["en": "Hi!", "fr": "Bonjour !"], themeColor: "#FF0000",
                                       visitorDisplayName: "Me"))
            #expect(look.welcomeMessage(for: ["fr-CA"]) == "Bonjour !")

            #expect(try await visitor.availability().status == .noAgentOnline)
            let agent = try await kit.onlineAgent()
            #expect(try await visitor.availability(queue: server.demo.queue.id).status == .open)
            await agent.stop()
            await visitor.stop()
        }
    }
}

/// Out of hours: the unavailable form opens an offline conversation, an agent answers it later,
/// and the visitor's client receives the reply (issue 7).
@Suite(.timeLimit(.minutes(2)))
struct KitOfflineConversationTests {
    @Test func outOfHours_unavailableFormOpensAnOfflineConversation_answeredLater_replyArrives() async throws {
        try await withServer { server in
            // Closed today (a holiday), with an unavailable form asking for an email and a message.
            let today = LocalDate(daysSinceEpoch: Int(Date().timeIntervalSince1970 / 86_400))
            let allDay = Dictionary(uniqueKeysWithValues: Weekday.allCases.map { ($0, [BusinessHours.Interval.hours(0, 24)]) })
            let queue = server.demo.queue.id
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/queues/\(queue)/hours",
                                               BusinessHours(timeZone: "UTC", weekly: allDay, holidays: [today]), token: server.adminToken).status == 200)
            let unavailable = Form(kind: .unavailable, fields: [
                FormField(key: "email", kind: .email, isRequired: true, label: ["en": "Your email"]),
                FormField(key: "message", kind: .multiLine, isRequired: true, label: ["en": "Your message"]),
            ])
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/forms/unavailable", unavailable, token: server.adminToken).status == 200)

            let kit = KitHarness(server: server)
            let visitor = kit.visitor(name: "Night Owl")
            let events = await visitor.events()
            try await visitor.start()

            // The chat screen: availability says closed, so it shows the unavailable form.
            var screen = ChatScreenMachine()
            _ = screen.start()
            _ = screen.availabilityLoaded(try await visitor.availability())
            let forms = try await visitor.forms()
            _ = screen.formsLoaded(ChatForms(preChat: forms.preChat, unavailable: forms.unavailable, postChat: forms.postChat))
            guard case .unavailable(_, let shown) = screen.screen else { throw TestFailure("expected the unavailable screen, got \(screen.screen)") }
            #expect(shown?.form == forms.unavailable)

            // A refused answer stays on the form; a good one opens the offline conversation.
            #expect(screen.submitOfflineForm(["email": .text("not-an-email"), "message": .text("Hi")]).isEmpty)
            let answers: FormAnswers = ["email": .text("owl@example.com"), "message": .text("My order #123 never came.")]
            let effects = screen.submitOfflineForm(answers)
            #expect(!effects.isEmpty, "the screen asks for the offline form to be sent")
            let conversation = try await visitor.openConversation(formAnswers: answers, offline: true)
            #expect(conversation.state == .queued)

            // Later, in the desk: an agent comes online, gets it, reads the form and replies.
            let agent = try await kit.onlineAgent(name: "Morning Shift")
            let seen = try await agent.forms(in: conversation.id)
            #expect(seen.first?.kind == .unavailable)
            #expect(seen.first?.answers["message"] == .text("My order #123 never came."))
            try await waitUntil { try await agent.conversations("mine").contains { $0.id == conversation.id } }
            _ = try await agent.reply("Sorry about that: it ships today.", in: conversation.id)

            // The visitor's client receives the reply.
            _ = try await first(events) { if case .event(let e) = $0 { e.message?.text == "Sorry about that: it ships today." } else { false } }
            await agent.stop()
            await visitor.stop()
        }
    }
}
