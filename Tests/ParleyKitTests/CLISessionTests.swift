import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// The real `parley chat` and `parley agent` binaries, driven like two people at two terminals.
@Suite(.timeLimit(.minutes(2)))
struct CLISessionTests {
    @Test func parleyChatAndParleyAgent_exchangeMessages_andEnd() async throws {
        try await withServer { server in
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: storage) }
            let agent = try ChildProcess("parley", arguments: ["agent", "--server", server.baseURL.absoluteString, "--email", server.demo.agent.email],
                                         environment: ["PARLEY_PASSWORD": server.demo.password])
            defer { agent.terminate() }
            try await agent.waitFor("signed in as Demo Agent (online)")

            let chat = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--name", "Ann",
                "--subject", "Terminal test", "--storage", storage.path,
            ])
            defer { chat.terminate() }
            try await chat.waitFor("type a message")
            try await agent.waitFor("new conversation 1")
            try await chat.waitFor("Demo Agent joined")

            chat.type("Hello from the terminal")
            try await agent.waitFor("[1] Ann: Hello from the terminal")
            agent.type("Hi Ann, how can I help?")
            try await chat.waitFor("Demo Agent: Hi Ann, how can I help?")

            chat.type("/end")
            try await chat.waitFor("you ended the conversation")
            #expect(try await chat.waitForExit() == 0)
            try await agent.waitFor("ended")
            agent.type("/quit")
            #expect(try await agent.waitForExit() == 0)
        }
    }

    @Test func parleyWithTheServerDown_saysSoWithItsExitCode() async throws {
        let chat = try ChildProcess("parley", arguments: ["admin", "app", "list", "--server", "http://127.0.0.1:9", "--token", "x"])
        #expect(try await chat.waitForExit() == 3)
        #expect(chat.printed.contains("cannot reach the server at http://127.0.0.1:9"))
        let badArguments = try ChildProcess("parley", arguments: ["chat", "--app", "not-an-id"])
        #expect(try await badArguments.waitForExit() == 64)
    }
}
