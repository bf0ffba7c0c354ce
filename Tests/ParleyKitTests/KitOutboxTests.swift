import Foundation
import ParleyCore
import ParleyKit
import ParleyTestSupport
import Testing

@Suite(.timeLimit(.minutes(3)))
struct KitOutboxTests {
    /// Reads a conversation's stored messages from the server and counts lost and duplicated ones.
    static func audit(_ server: TestServer, token: String, conversation: ConversationID, expected: [String]) async throws -> (lost: Int, duplicated: Int, inOrder: Bool) {
        let page = try await server.http.get("/v1/conversations/\(conversation)/events?after=0&limit=500", token: token, as: EventPage.self)
        let texts = page.events.compactMap(\.message?.text)
        let counts = Dictionary(texts.map { ($0, 1) }, uniquingKeysWith: +)
        let lost = expected.filter { counts[$0] == nil }.count
        let duplicated = counts.values.filter { $0 > 1 }.reduce(0) { $0 + $1 - 1 }
        return (lost, duplicated, texts.filter(expected.contains) == expected)
    }

    @Test func messagesSentWhileTheServerIsDown_showPending_andAreDeliveredExactlyOnceInOrderWhenItReturns() async throws {
        var server = try await TestServer.start()
        let kit = KitHarness(server: server)
        let storage = kit.storageDirectory()
        let visitor = kit.visitor(storage: storage)
        try await visitor.start()
        let conversation = try await visitor.openConversation(subject: "offline test")
        let model = try await visitor.conversation(conversation.id)
        try await waitUntil { await visitor.state.connectionState == .connected }

        await server.stop(keepFiles: true)
        try await waitUntil { await visitor.state.connectionState != .connected }
        let texts = (1...12).map { "offline \($0)" }
        for text in texts { try await visitor.send(text, in: conversation.id) }
        let pending = await model.messages
        #expect(pending.map(\.text) == texts)
        #expect(pending.allSatisfy { $0.deliveryState == .pending })

        server = try await TestServer.start(restarting: server)
        await visitor.reconnectNow()
        try await waitUntil(timeout: .seconds(30)) { await model.messages.allSatisfy { $0.deliveryState == .sent } }
        let sent = await model.messages
        #expect(sent.map(\.text) == texts)
        #expect(sent.compactMap(\.seq) == sent.compactMap(\.seq).sorted())
        let token = try await server.visitor(try #require(FileStorage(directory: storage).loadSecrets()).deviceID).token
        let audit = try await Self.audit(server, token: token, conversation: conversation.id, expected: texts)
        print("offline outbox: lost \(audit.lost), duplicated \(audit.duplicated), in order \(audit.inOrder)")
        #expect(audit.lost == 0 && audit.duplicated == 0 && audit.inOrder)
        await visitor.stop()
        await server.stop()
    }

    @Test func messagesQueuedInAClientDiscardedMidFlight_areDeliveredByANewClientOnTheSameStorage() async throws {
        try await withServer { server in
            let kit = KitHarness(server: server)
            let storage = kit.storageDirectory()
            let first = kit.visitor(storage: storage)
            try await first.start()
            let conversation = try await first.openConversation()
            try await waitUntil { await first.state.connectionState == .connected }
            let texts = (1...40).map { "message \($0)" }
            for text in texts { try await first.send(text, in: conversation.id) }
            // A simulated kill: the client is dropped mid-flight, with no chance to flush anything.
            await first.stop()

            let second = kit.visitor(storage: storage)
            try await second.start()
            let model = try await second.conversation(conversation.id)
            try await waitUntil(timeout: .seconds(30)) {
                let messages = await model.messages
                return messages.count >= texts.count && messages.allSatisfy { $0.deliveryState == .sent }
            }
            let token = try await server.visitor(try #require(FileStorage(directory: storage).loadSecrets()).deviceID).token
            let audit = try await Self.audit(server, token: token, conversation: conversation.id, expected: texts)
            print("after kill: lost \(audit.lost), duplicated \(audit.duplicated), in order \(audit.inOrder)")
            #expect(audit.lost == 0 && audit.duplicated == 0 && audit.inOrder)
            // A message shows as sent once its event arrives; the server writes the event before the
            // ack, and only the ack takes the item out of the outbox file (an fsync'd write). So the
            // file empties just after the model says sent: wait for that, do not sample it.
            try await waitUntil(timeout: .seconds(30)) { (try? FileStorage(directory: storage).loadOutbox().isEmpty) == true }
            await second.stop()
        }
    }

    @Test func droppedConnection_resumesWithNoGapAndNoDuplicate() async throws {
        var server = try await TestServer.start()
        let kit = KitHarness(server: server)
        let visitor = kit.visitor()
        try await visitor.start()
        let conversation = try await visitor.openConversation()
        let model = try await visitor.conversation(conversation.id)
        let agent = try await kit.onlineAgent()
        try await waitUntil { await model.state == .assigned }
        for index in 1...5 { try await agent.reply("before \(index)", in: conversation.id) }
        try await waitUntil { await model.messages.count == 5 }

        // The server goes away mid-conversation and comes back; the agent wrote meanwhile.
        await server.stop(keepFiles: true)
        server = try await TestServer.start(restarting: server)
        await agent.reconnectNow()
        for index in 1...5 { try await agent.reply("after \(index)", in: conversation.id) }
        await visitor.reconnectNow()
        try await waitUntil(timeout: .seconds(30)) { await model.messages.count >= 10 }
        try await Task.sleep(for: .milliseconds(300))
        let messages = await model.messages
        #expect(messages.map(\.text) == (1...5).map { "before \($0)" } + (1...5).map { "after \($0)" })
        let seqs = messages.compactMap(\.seq)
        #expect(Set(seqs).count == seqs.count)
        await visitor.stop()
        await agent.stop()
        await server.stop()
    }
}
