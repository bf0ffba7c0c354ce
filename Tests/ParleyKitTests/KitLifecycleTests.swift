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
