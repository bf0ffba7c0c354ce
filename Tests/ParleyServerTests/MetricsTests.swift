import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// `GET /metrics`: the Prometheus text an operator scrapes, guarded by the operator token, counting
/// what really happened (commits, the SQLite store's batches, sockets, the queue).
@Suite(.timeLimit(.minutes(2)))
struct MetricsTests {
    /// The value of the sample `name` (with its labels as printed), or nil when it is not there.
    static func sample(_ name: String, in text: String) -> Double? {
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }

    @Test func operatorOnly_andCountsCommitsBatchesSocketsAndTheQueue() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            for index in 1...3 {
                _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                               SendMessageRequest(clientMessageID: "m\(index)", text: "hello \(index)"),
                                               token: visitor.token, as: SendMessageResponse.self)
            }
            // A resend is answered, not committed again.
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                           SendMessageRequest(clientMessageID: "m1", text: "hello 1"), token: visitor.token, as: SendMessageResponse.self)
            let socket = try await server.socket(visitor.token)

            #expect(try await server.http.request("GET", "/metrics").status == 401)
            #expect(try await server.http.request("GET", "/metrics", token: visitor.token).status == 403)
            let reply = try await server.http.request("GET", "/metrics", token: server.adminToken)
            #expect(reply.status == 200)
            #expect(reply.headers["content-type"]?.hasPrefix("text/plain; version=0.0.4") == true)
            let text = String(decoding: reply.body, as: UTF8.self)

            #expect(Self.sample(ServerMetrics.Name.changesCommitted, in: text) == 4, "the opening and three messages")
            #expect(Self.sample(ServerMetrics.Name.eventsCommitted, in: text) == 4)
            #expect(Self.sample(ServerMetrics.Name.commitDuration + "_count", in: text) == 4)
            // The SQLite store's transactions carry every write of its group committer (visitors too),
            // each transaction at least one of them.
            let transactions = try #require(Self.sample(ServerMetrics.Name.commitBatchSize + "_count", in: text))
            let writes = try #require(Self.sample(ServerMetrics.Name.commitBatchSize + "_sum", in: text))
            #expect(transactions >= 1 && writes >= 4 + 1 && writes >= transactions, "\(transactions) transactions, \(writes) writes")
            #expect(Self.sample(ServerMetrics.Name.commitTransaction + "_count", in: text) == transactions)
            #expect(Self.sample(ServerMetrics.Name.connections + #"{kind="visitor"}"#, in: text) == 1)
            #expect(Self.sample(ServerMetrics.Name.connections + #"{kind="agent"}"#, in: text) == 0)
            #expect(Self.sample(ServerMetrics.Name.conversationsWaiting, in: text) == 1, "nobody is online to take it")
            #expect(Self.sample(ServerMetrics.Name.outboxPending + #"{kind="mail"}"#, in: text) == 0)
            #expect(!text.contains("hello"), "no message text in the metrics")
            await socket.close()
        }
    }
}
