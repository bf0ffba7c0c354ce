import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// The real `parley chat` and `parley agent` binaries, driven like two people at two terminals.
@Suite(.timeLimit(.minutes(2)))
struct CLISessionTests {
    /// `parley agent` signed in as the demo agent, online.
    static func demoAgentTerminal(_ server: TestServer) async throws -> ChildProcess {
        let agent = try ChildProcess("parley", arguments: ["agent", "--server", server.baseURL.absoluteString, "--email", server.demo.agent.email],
                                     environment: ["PARLEY_PASSWORD": server.demo.password])
        try await agent.waitFor("signed in as Demo Agent (online)")
        return agent
    }

    @Test func parleyChatAndParleyAgent_exchangeMessages_andEnd() async throws {
        try await withServer { server in
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: storage) }
            let agent = try await Self.demoAgentTerminal(server)
            defer { agent.terminate() }

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

    /// `parley chat --push-demo`: the terminal registers as an encrypted FCM device and shows the
    /// push the agent's reply made, as the local provider fake received it and decrypted.
    @Test(.enabled(if: PushProviderFake.isAvailable, "make .venv: bash scripts/test.sh prepares it"))
    func pushDemo_showsWhatThePushCarried_decrypted() async throws {
        let fake = try await PushProviderFake.start()
        defer { fake.stop() }
        let url = try #require(URL(string: fake.tlsURL))
        try await withServer(configure: {
            $0.outboundTrustRootsFile = fake.caFile
            $0.push.isDeliveryEnabled = true
            $0.push.delay = 0
            $0.push.fcmURL = url
        }) { server in
            let account = try ParleyJSON.decode(FCMServiceAccount.self, from: Data(fake.serviceAccountJSON.utf8))
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/push/fcm", FCMCredentialsRequest(serviceAccount: account),
                                               token: server.adminToken).status == 200)
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-push-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: storage) }
            let agent = try await Self.demoAgentTerminal(server)
            defer { agent.terminate() }
            let chat = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--name", "Ann",
                "--subject", "Push demo", "--storage", storage.path, "--push-demo", fake.controlURL,
            ])
            defer { chat.terminate() }
            try await chat.waitFor("push demo: registered as an FCM device (encrypted)")
            try await agent.waitFor("new conversation 1")
            agent.type("Your parcel left the depot")
            try await chat.waitFor("[message · badge 1")
            let line = try #require(chat.printed.split(separator: "\n").first { $0.contains("· push (") }.map(String.init))
            #expect(line.contains("content sealed") && line.contains("Demo Agent — Your parcel left the depot") && line.contains("[message · badge 1"),
                    "\(line)")
            let sent = try await fake.requests(provider: "fcm")
            #expect(sent.count == 1 && !sent[0].body.contains("parcel"), "the provider saw only ciphertext")
            chat.type("/end")
            #expect(try await chat.waitForExit() == 0)
        }
    }

    @Test func filesGoBothWays_withAttach_andAreKeptWithSave() async throws {
        try await withServer { server in
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-files-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: folder.appendingPathComponent("saved"), withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let report = Data("%PDF-1.4\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n".utf8)
            try report.write(to: folder.appendingPathComponent("report.pdf"))
            let notes = Data("order 42: the parcel is in the depot\n".utf8)
            try notes.write(to: folder.appendingPathComponent("notes.txt"))
            let agent = try await Self.demoAgentTerminal(server)
            defer { agent.terminate() }
            let chat = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--name", "Ann",
                "--subject", "Files", "--storage", folder.appendingPathComponent("storage").path,
            ])
            defer { chat.terminate() }
            try await chat.waitFor("type a message")
            try await agent.waitFor("new conversation 1")
            try await chat.waitFor("Demo Agent joined")

            chat.type("/attach \(folder.appendingPathComponent("report.pdf").path) -- my invoice")
            try await agent.waitFor("[1] Ann sent a file report.pdf (\(report.count) B, application/pdf); /save 1 keeps it: my invoice")
            agent.type("/save 1 \(folder.appendingPathComponent("saved").path)")
            try await agent.waitFor("saved \(folder.appendingPathComponent("saved/report.pdf").path)")
            #expect(try Data(contentsOf: folder.appendingPathComponent("saved/report.pdf")) == report)

            agent.type("/attach \(folder.appendingPathComponent("notes.txt").path)")
            try await chat.waitFor("Demo Agent sent a file notes.txt (\(notes.count) B, text/plain); /save 1 keeps it")
            chat.type("/save 1 \(folder.appendingPathComponent("from-agent.txt").path)")
            try await chat.waitFor("saved \(folder.appendingPathComponent("from-agent.txt").path)")
            #expect(try Data(contentsOf: folder.appendingPathComponent("from-agent.txt")) == notes)

            chat.type("/attach \(folder.appendingPathComponent("missing.png").path)")
            try await chat.waitFor("not sent: cannot read missing.png")
            chat.type("/end")
            #expect(try await chat.waitForExit() == 0)
            agent.type("/quit")
            #expect(try await agent.waitForExit() == 0)
        }
    }

    @Test func parleyChat_signsInAVerifiedUser_whoTheDeskSeesAsTheUser() async throws {
        try await withServer { server in
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/identity", IdentitySettings(acceptsIdentityHash: true),
                                               token: server.adminToken).status == 200)
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: storage) }
            let hash = IdentityHash.make(userID: "terminal-user", secretKey: server.demo.app.secretKey)
            let agent = try await Self.demoAgentTerminal(server)
            defer { agent.terminate() }

            let refused = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--user-id", "terminal-user",
            ])
            #expect(try await refused.waitForExit() != 0, "a user id without a proof is refused before anything is sent")

            let chat = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--name", "Tess",
                "--subject", "Signed in", "--storage", storage.path, "--user-id", "terminal-user", "--user-hash", hash,
            ])
            defer { chat.terminate() }
            try await chat.waitFor("type a message")
            try await agent.waitFor("new conversation 1")
            let conversations = try await server.store.conversations(.init(appID: server.appID))
            let first = try #require(conversations.first)
            let visitor = try #require(try await server.store.visitor(first.visitorID, app: server.appID))
            #expect(visitor.userID == "terminal-user")
        }
    }

    @Test func parleyChat_rendersTheChatScreen_preChatFormRefusedThenAccepted_postChatAndRating() async throws {
        try await withServer { server in
            let forms = "/v1/admin/apps/\(server.appID)/forms"
            let email = FormField(key: "email", kind: .email, isRequired: true, label: ["en": "Your email"], hint: ["en": "for the transcript"])
            let topic = FormField(key: "topic", kind: .select, label: ["en": "Topic"],
                                  options: [.init(value: "billing", label: ["en": "Billing"]), .init(value: "tech", label: ["en": "Technical"])])
            let score = FormField(key: "helpful", kind: .checkbox, label: ["en": "Did we help?"])
            #expect(try await server.http.send("PUT", "\(forms)/pre_chat", Form(kind: .preChat, fields: [email, topic]), token: server.adminToken).status == 200)
            #expect(try await server.http.send("PUT", "\(forms)/post_chat", Form(kind: .postChat, fields: [score]), token: server.adminToken).status == 200)
            #expect(try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/appearance",
                                               Appearance(title: "Acme help", welcomeMessage: ["en": "Hi! Ask us anything."]), token: server.adminToken).status == 200)
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: storage) }
            let agent = try await Self.demoAgentTerminal(server)
            defer { agent.terminate() }

            let chat = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--name", "Ann", "--storage", storage.path,
            ])
            defer { chat.terminate() }
            try await chat.waitFor("Hi! Ask us anything.")
            try await chat.waitFor("? Your email (required) — for the transcript")
            chat.type("ann-at-example")
            try await chat.waitFor("1) Billing")
            chat.type("2")
            try await chat.waitFor("Your email: that is not an email address")
            chat.type("ann@example.com")
            try await chat.waitFor("type a message")
            try await chat.waitFor("Demo Agent joined")
            chat.type("/end")
            try await chat.waitFor("? Did we help? (Enter to skip) [y/n]")
            chat.type("y")
            try await chat.waitFor("? Rate this conversation [1–5]")
            chat.type("4")
            try await chat.waitFor("thanks for your answers")
            #expect(try await chat.waitForExit() == 0)

            let conversation = try #require(try await server.store.conversations(.init(appID: server.appID, limit: 10)).first)
            let answered = try await server.store.formSubmissions(conversation.id, app: server.appID)
            #expect(answered.map(\.answers) == [["email": .text("ann@example.com"), "topic": .text("tech")], ["helpful": .bool(true)]])
            #expect(try await server.store.rating(conversation.id, app: server.appID)?.score == 4)
            agent.type("/quit")
            #expect(try await agent.waitForExit() == 0)
        }
    }

    @Test func parleyAgent_notesStayWithAgents_andTransferHandsTheVisitorOver() async throws {
        try await withServer { server in
            let storage = FileManager.default.temporaryDirectory.appendingPathComponent("parley-cli-\(UUID().uuidString)")
            defer { try? FileManager.default.removeItem(at: storage) }
            let first = try await Self.demoAgentTerminal(server)
            defer { first.terminate() }
            let chat = try ChildProcess("parley", arguments: [
                "chat", "--server", server.baseURL.absoluteString, "--app", server.appID.rawValue, "--name", "Ann", "--storage", storage.path,
            ])
            defer { chat.terminate() }
            try await first.waitFor("new conversation 1")
            try await chat.waitFor("Demo Agent joined")

            // A second agent comes online only now, so the conversation is the first agent's.
            let colleague = try await server.agent(name: "Alan")
            let second = try ChildProcess("parley", arguments: ["agent", "--server", server.baseURL.absoluteString, "--email", colleague.agent.email],
                                          environment: ["PARLEY_PASSWORD": "password-123"])
            defer { second.terminate() }
            try await second.waitFor("signed in as Alan (online)")

            first.type("/note Parcel lost by the carrier, refund approved")
            try await first.waitFor("note added (agents only)")
            first.type("/transfer \(colleague.agent.id)")
            try await first.waitFor("transferred")
            try await second.waitFor("new conversation 1")
            try await chat.waitFor("Demo Agent left")
            try await chat.waitFor("Alan joined")
            second.type("Alan here, I have your file")
            try await chat.waitFor("Alan: Alan here, I have your file")
            // The visitor's terminal never printed the note.
            #expect(!chat.printed.contains("refund approved"))
            let mine = try await server.http.get("/v1/conversations?view=mine", token: colleague.token, as: ConversationList.self)
            let conversation = try #require(mine.conversations.count == 1 ? mine.conversations.first : nil)
            let notes = try await server.http.get("/v1/conversations/\(conversation.id)/notes", token: colleague.token, as: NoteList.self)
            #expect(notes.notes.map(\.text) == ["Parcel lost by the carrier, refund approved"])
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
