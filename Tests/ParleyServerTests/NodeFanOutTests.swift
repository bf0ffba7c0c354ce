import Foundation
import Logging
import ParleyCore
import ParleyStorePostgres
import ParleyTestSupport
import Testing

/// Two parleyd nodes in this process on one real PostgreSQL database: what one node commits reaches
/// the sockets of the other (decision 0006), also across an interrupted notice feed.
@Suite(.timeLimit(.minutes(2)), .enabled(if: nodeTestDatabaseURL != nil, "set PARLEY_TEST_DATABASE_URL=postgres://… (scripts/test-postgres.sh start)"))
struct NodeFanOutTests {
    @Test func visitorOnOneNode_agentOnTheOther_hearEachOther() async throws {
        try await withTwoNodes { one, two, _ in
            let visitor = try await one.visitor()
            let conversation = try await one.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let visitorSocket = try await one.socket(visitor.token)
            try await visitorSocket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            _ = try await visitorSocket.next { if case .subscribed = $0 { true } else { false } }

            let agent = try await two.demoAgent()
            let agentSocket = try await two.socket(agent.token)
            try await agentSocket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            _ = try await agentSocket.next { if case .subscribed = $0 { true } else { false } }

            // Node one stores the visitor's message; the agent's socket on node two gets it.
            try await visitorSocket.send(.send(.init(ref: "v1", conversationID: conversation.id, clientMessageID: "from-visitor", text: "hello from node one")))
            let heard = try await agentSocket.nextEvent(in: conversation.id) { $0.message != nil }
            #expect(heard.message?.text == "hello from node one")

            // And the other way: a message stored by node two reaches the visitor's socket on node one.
            _ = try await two.http.post("/v1/conversations/\(conversation.id)/messages",
                                        SendMessageRequest(clientMessageID: "from-node-two", text: "stored on node two"),
                                        token: visitor.token, as: SendMessageResponse.self)
            let back = try await visitorSocket.nextEvent(in: conversation.id) { $0.message?.clientMessageID == "from-node-two" }
            #expect(back.message?.text == "stored on node two")
            #expect(back.seq == heard.seq + 1, "one sequence across both nodes")

            await visitorSocket.close()
            await agentSocket.close()
        }
    }

    /// Node two learns of the message only from node one's notice; it reads the conversation for
    /// its summary because its mirror of the queues holds it (an assigned one it would not).
    @Test func aVisitorWritingInAQueuedConversationOnOneNode_tellsTheDesksOnTheOther() async throws {
        try await withTwoNodes { one, two, _ in
            try await expectQueuedWritingReachesTheDesk(writer: one, desk: two)
        }
    }

    @Test func listenerConnectionKilled_nodeCatchesUpWithNoGapOrDuplicate() async throws {
        try await withTwoNodes { one, two, database in
            let visitor = try await one.visitor()
            let conversation = try await one.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let agent = try await two.demoAgent()
            let agentSocket = try await two.socket(agent.token)
            try await agentSocket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            _ = try await agentSocket.next { if case .subscribed = $0 { true } else { false } }

            // Cut every LISTEN connection, then store messages at once, while the nodes reconnect:
            // whatever notices are lost, the catch-up after reconnecting delivers the events.
            let server = try PostgresStore.Configuration(url: try #require(nodeTestDatabaseURL))
            let terminated = try await PostgresAdmin.integer("""
                SELECT count(*) FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = '\(try #require(database.database))' AND query LIKE 'LISTEN%') AS cut
                """, on: server)
            #expect(terminated == 2, "one listener per node")
            for index in 1...5 {
                _ = try await one.http.post("/v1/conversations/\(conversation.id)/messages",
                                            SendMessageRequest(clientMessageID: "m\(index)", text: "message \(index)"),
                                            token: visitor.token, as: SendMessageResponse.self)
            }
            var texts: [String] = []
            var seqs: [Int64] = []
            while texts.count < 5 {
                let event = try await agentSocket.nextEvent(in: conversation.id, timeout: .seconds(20)) { $0.message != nil }
                texts.append(event.message?.text ?? "")
                seqs.append(event.seq)
            }
            #expect(texts == (1...5).map { "message \($0)" })
            #expect(seqs == Array(seqs[0]...(seqs[0] + 4)), "no gap, no duplicate")
            // Left in the socket's buffer: only the replayed "opened" event (seq 1) skipped above.
            let extra = try await agentSocket.takeEvents(in: conversation.id)
            #expect(extra.map(\.seq) == [1], "nothing delivered twice: \(extra.map(\.seq))")
            await agentSocket.close()
        }
    }
}
