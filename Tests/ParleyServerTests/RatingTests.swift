import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// Post-chat ratings: the visitor rates an ended conversation; agents read it; admins see the
/// averages per agent and per queue.
@Suite(.timeLimit(.minutes(2)))
struct RatingTests {
    /// Opens a conversation, has `agent` accept and end it, and returns it with its visitor.
    func endedConversation(_ server: TestServer, agent: AgentSession) async throws -> (Conversation, VisitorSession) {
        let visitor = try await server.visitor()
        let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
        #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
        #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/end", token: agent.token).status == 200)
        return (conversation, visitor)
    }

    @Test func visitorRatesAfterTheEnd_agentsReadIt_badInputRefused() async throws {
        try await withServer { server in
            let agent = try await server.agent(name: "Ann")
            let visitor = try await server.visitor()
            let open = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let early = try await server.http.send("PUT", "/v1/conversations/\(open.id)/rating", RatingRequest(score: 5), token: visitor.token)
            #expect(early.status == 409, "not ended yet")

            let (conversation, owner) = try await endedConversation(server, agent: agent)
            let path = "/v1/conversations/\(conversation.id)/rating"
            for score in [0, 6, -1] {
                #expect(try await server.http.send("PUT", path, RatingRequest(score: score), token: owner.token).status == 400, "score \(score)")
            }
            let long = String(repeating: "x", count: Limits.maxRatingCommentLength + 1)
            #expect(try await server.http.send("PUT", path, RatingRequest(score: 3, comment: long), token: owner.token).status == 400)
            #expect(try await server.http.send("PUT", path, RatingRequest(score: 3), token: visitor.token).status == 404, "another visitor")
            #expect(try await server.http.send("PUT", path, RatingRequest(score: 3), token: agent.token).status == 403, "agents do not rate")
            #expect(try await server.http.request("GET", path, token: agent.token).status == 204, "no rating yet: a normal state")

            // An agent's desk is told as the rating arrives, without asking.
            let desk = try await server.socket(agent.token)
            let rated = try await server.http.send("PUT", path, RatingRequest(score: 4, comment: "  Helpful  "), token: owner.token)
            #expect(rated.status == 200)
            let rating = try rated.decode(Rating.self)
            #expect(rating.score == 4 && rating.comment == "Helpful" && rating.agentID == agent.agent.id)
            let live = try await desk.next { if case .answers = $0 { true } else { false } }
            #expect(live == .answers(ConversationAnswers(conversationID: conversation.id, rating: rating, formSubmissions: [])))
            await desk.close()
            #expect(try await server.http.get(path, token: agent.token, as: Rating.self) == rating)
            #expect(try await server.http.get(path, token: owner.token, as: Rating.self) == rating)
        }
    }

    @Test func adminsSeeAveragesPerAgentAndQueue_agentsMayNot() async throws {
        try await withServer { server in
            let ann = try await server.agent(name: "Ann", capacity: 5)
            let bob = try await server.agent(name: "Bob", capacity: 5)
            for (agent, score) in [(ann, 5), (ann, 4), (bob, 2)] {
                let (conversation, visitor) = try await endedConversation(server, agent: agent)
                #expect(try await server.http.send("PUT", "/v1/conversations/\(conversation.id)/rating", RatingRequest(score: score),
                                                   token: visitor.token).status == 200)
            }
            let summary = try await server.http.get("/v1/admin/apps/\(server.appID)/ratings", token: server.adminToken, as: RatingSummary.self)
            #expect(summary.overall.count == 3 && summary.overall.average == 3.67 && summary.overall.distribution == [0, 1, 0, 1, 1])
            #expect(summary.agents.map(\.name) == ["Ann", "Bob"], "best first")
            #expect(summary.agents.map(\.average) == [4.5, 2])
            #expect(summary.queues.count == 1 && summary.queues[0].id == server.demo.queue.id.rawValue && summary.queues[0].count == 3)

            let admin = try await server.agent(name: "Boss", role: .admin)
            #expect(try await server.http.get("/v1/admin/apps/\(server.appID)/ratings", token: admin.token, as: RatingSummary.self) == summary)
            #expect(try await server.http.request("GET", "/v1/admin/apps/\(server.appID)/ratings", token: ann.token).status == 403)
        }
    }
}
