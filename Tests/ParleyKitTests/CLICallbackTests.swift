import Foundation
import ParleyCore
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// `parley chat --callback` and `parley agent` handling callback requests, as two people at two
/// terminals: the visitor asks to be called, answers the menu when the agent is ready, and the
/// agent calls and records the outcome.
@Suite(.timeLimit(.minutes(2)))
struct CLICallbackTests {
    @Test func callMe_visitorConfirmsFromTheMenu_agentRecordsTheOutcome() async throws {
        try await withServer { server in
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: storage) }
            let chat = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--name", "Ann",
                "--storage", storage.path, "--callback", "call_me", "--phone", "030 901820", "--calling-code", "49",
            ])
            defer { chat.terminate() }
            try await chat.waitFor("call me at +4930901820")
            try await chat.waitFor("position 1 in the queue")

            let agent = try await CLISessionTests.demoAgentTerminal(server)
            defer { agent.terminate() }
            try await agent.waitFor("call me at +4930901820; waiting for the visitor to confirm")
            try await chat.waitFor("1) Yes, I'm ready")
            try await chat.waitFor("3) Cancel, my problem has been solved")
            chat.type("7")
            try await chat.waitFor("type a number from 1 to 3")
            chat.type("1")
            try await chat.waitFor("You will receive the call shortly.")
            try await agent.waitFor("[1] confirmed: call +4930901820 now, then /outcome")
            agent.type("/outcome sideways")
            try await agent.waitFor("/outcome takes connected, no_answer, wrong_number or done")
            agent.type("/outcome connected")
            try await agent.waitFor("callback done: connected")
            try await chat.waitFor("callback done (connected)")
            #expect(try await chat.waitForExit() == 0)
            agent.type("/quit")
            #expect(try await agent.waitForExit() == 0)
        }
    }

    @Test func aCallbackNeedsItsPhone_andRefusedInputChangesNothing() async throws {
        try await withServer { server in
            let noPhone = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--callback", "call_me",
            ])
            #expect(try await noPhone.waitForExit() != 0)
            #expect(noPhone.printed.contains("--callback call_me needs --phone"))
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: storage) }
            let badPhone = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--storage", storage.path,
                "--callback", "call_me", "--phone", "12",
            ])
            #expect(try await badPhone.waitForExit() != 0)
            #expect(badPhone.printed.contains("not a number that can be called"), "\(badPhone.printed)")
            let conversations = try await server.store.conversations(.init(appID: server.appID))
            #expect(conversations.isEmpty)
        }
    }

    @Test func adminQueueCallbacks_showsAndChangesTheSettings() async throws {
        try await withServer { server in
            func parley(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                let process = try ChildProcess("parley", arguments: ["admin", "queue", "callbacks"] + arguments + [
                    "--server", server.baseURL.absoluteString, "--token", server.adminToken, "--app", server.appID.rawValue,
                    "--queue", server.demo.queue.id.rawValue])
                return (try await process.waitForExit(), process.printed)
            }
            let shown = try await parley([])
            #expect(shown.status == 0 && shown.output.contains("60 s to confirm") && shown.output.contains("none (no i_will_call)"), "\(shown.output)")
            let changed = try await parley(["--dial-number", "+4930901820", "--offer-seconds", "90", "--on-expiry", "end", "--json"])
            #expect(changed.status == 0, "\(changed.output)")
            let settings = try ParleyJSON.decode(CallbackSettings.self, from: Data(changed.output.utf8))
            #expect(settings == CallbackSettings(enabled: true, offerSeconds: 90, snoozeMinutes: 5, onExpiry: .end, dialNumber: "+4930901820"))
            let refused = try await parley(["--offer-seconds", "5"])
            #expect(refused.status != 0 && refused.output.contains("--offer-seconds: between 10 and 3600"))
            let stored = try await server.http.get("/v1/admin/apps/\(server.appID)/queues/\(server.demo.queue.id)/callbacks", token: server.adminToken,
                                                   as: CallbackSettings.self)
            #expect(stored == settings, "a refused change changes nothing")
        }
    }
}
