import Foundation
import ParleyCore
import ParleyTestSupport
import ParleyServer
import Testing

@Suite(.timeLimit(.minutes(2)))
struct RoutingTests {
    @Test func threeVisitorsOneAgentOfCapacityTwo_positionsReported_thirdAssignedWhenASlotFrees() async throws {
        try await withServer { server in
            var visitors: [(session: VisitorSession, socket: TestSocket, conversation: Conversation)] = []
            for index in 1...3 {
                let session = try await server.visitor(name: "Visitor \(index)")
                let socket = try await server.socket(session.token)
                let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "#\(index)"), token: session.token, as: Conversation.self)
                #expect(conversation.queuePosition == index)
                let position = try await socket.next { if case .queuePosition = $0 { true } else { false } }
                #expect(position == .queuePosition(.init(conversationID: conversation.id, position: index)))
                visitors.append((session, socket, conversation))
            }
            let agentSession = try await server.agent(name: "Solo", capacity: 2)
            let agent = try await server.socket(agentSession.token)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agentSession.token)

            // The first two are assigned, in order; the third moves up to position 1.
            for (_, _, conversation) in visitors.prefix(2) {
                _ = try await agent.next { if case .conversation(let c) = $0 { c.id == conversation.id && c.state == .assigned } else { false } }
            }
            let third = visitors[2]
            let moved = try await third.socket.next { if case .queuePosition(let p) = $0 { p.position == 1 } else { false } }
            #expect(moved == .queuePosition(.init(conversationID: third.conversation.id, position: 1)))
            let waiting = try await server.http.get("/v1/conversations?view=queued", token: agentSession.token, as: ConversationList.self)
            #expect(waiting.conversations.map(\.id) == [third.conversation.id])
            let mine = try await server.http.get("/v1/conversations?view=mine", token: agentSession.token, as: ConversationList.self)
            #expect(Set(mine.conversations.map(\.id)) == Set(visitors.prefix(2).map(\.conversation.id)))

            // Ending one frees a slot: the third is assigned.
            _ = try await server.http.post("/v1/conversations/\(visitors[0].conversation.id)/end", [String: String](), token: agentSession.token, as: Conversation.self)
            _ = try await agent.next { if case .conversation(let c) = $0 { c.id == third.conversation.id && c.state == .assigned } else { false } }
            let now = try await server.http.get("/v1/conversations/\(third.conversation.id)", token: third.session.token, as: Conversation.self)
            #expect(now.state == .assigned && now.agentID == agentSession.agent.id)
            for visitor in visitors { await visitor.socket.close() }
            await agent.close()
        }
    }

    @Test func leastLoadedAgent_getsTheNextConversation() async throws {
        try await withServer { server in
            let first = try await server.agent(name: "First", capacity: 3)
            let second = try await server.agent(name: "Second", capacity: 3)
            var sockets: [TestSocket] = []
            for agent in [first, second] {
                sockets.append(try await server.socket(agent.token))
                _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agent.token)
            }
            var owners: [AgentID] = []
            for _ in 1...4 {
                let session = try await server.visitor()
                let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
                let assigned = try await sockets[0].next { if case .conversation(let c) = $0 { c.id == conversation.id && c.state == .assigned } else { false } }
                guard case .conversation(let summary) = assigned, let owner = summary.agentID else { throw TestFailure("not assigned") }
                owners.append(owner)
            }
            // Least loaded first, then longest idle: the two agents alternate.
            #expect(owners.filter { $0 == first.agent.id }.count == 2)
            #expect(owners.filter { $0 == second.agent.id }.count == 2)
            #expect(owners[0] != owners[1] && owners[2] != owners[3])
            for socket in sockets { await socket.close() }
        }
    }

    @Test func agentOfflinePastGrace_conversationsReturnToTheHeadOfTheQueue() async throws {
        let clock = ManualClock(start: Date())
        try await withServer(configure: { $0.offlineGrace = 120; $0.clock = clock }) { server in
            let agentSession = try await server.agent(name: "Leaver", capacity: 1)
            let agent = try await server.socket(agentSession.token)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agentSession.token)
            let firstVisitor = try await server.visitor()
            let firstSocket = try await server.socket(firstVisitor.token)
            let first = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: firstVisitor.token, as: Conversation.self)
            try await firstSocket.send(.subscribe(.init(conversationID: first.id, afterSeq: 0)))
            _ = try await firstSocket.nextEvent(in: first.id) { $0.body.type == "participant_joined" }
            let secondVisitor = try await server.visitor()
            let second = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: secondVisitor.token, as: Conversation.self)
            #expect(second.queuePosition == 1)

            // The agent's only connection drops; after the grace the conversation goes back, ahead of the other.
            await agent.close()
            await clock.waitForSleepers(1)
            clock.advance(by: 119)
            #expect(clock.sleeperCount == 1, "not yet")
            clock.advance(by: 1)
            let left = try await firstSocket.nextEvent(in: first.id) { $0.body.type == "participant_left" }
            #expect(left.body == .participantLeft(.init(participant: .agent(agentSession.agent.id, name: "Leaver"), reason: .offline)))
            let requeued = try await firstSocket.nextEvent(in: first.id) { [leftSeq = left.seq] in $0.seq == leftSeq + 1 }
            #expect(requeued.body == .stateChanged(.init(from: .assigned, to: .queued, reason: .requeued)))
            let position = try await firstSocket.next { if case .queuePosition = $0 { true } else { false } }
            #expect(position == .queuePosition(.init(conversationID: first.id, position: 1)))
            let secondNow = try await server.http.get("/v1/conversations/\(second.id)", token: secondVisitor.token, as: Conversation.self)
            #expect(secondNow.queuePosition == 2)
            await firstSocket.close()
        }
    }

    @Test func agentWhoReconnectsWithinGrace_keepsTheConversation() async throws {
        let clock = ManualClock(start: Date())
        try await withServer(configure: { $0.offlineGrace = 120; $0.clock = clock }) { server in
            let agentSession = try await server.agent(name: "Flaky", capacity: 1)
            let agent = try await server.socket(agentSession.token)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agentSession.token)
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            _ = try await agent.next { if case .conversation(let c) = $0 { c.id == conversation.id && c.state == .assigned } else { false } }
            await agent.close()
            await clock.waitForSleepers(1)
            clock.advance(by: 60)
            // Its `ready` comes after routing saw the agent back, which ends the grace timer.
            let back = try await server.socket(agentSession.token)
            #expect(clock.sleeperCount == 0, "the grace timer is gone")
            clock.advance(by: 3_600)
            let after = try await server.http.get("/v1/conversations/\(conversation.id)", token: visitor.token, as: Conversation.self)
            #expect(after.state == .assigned && after.agentID == agentSession.agent.id)
            await back.close()
        }
    }

    @Test func agentAcceptsAQueuedConversationByHand() async throws {
        try await withServer { server in
            let agentSession = try await server.agent(name: "Picker", capacity: 1)
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let accepted = try await server.http.post("/v1/conversations/\(conversation.id)/accept", [String: String](), token: agentSession.token, as: Conversation.self)
            #expect(accepted.state == .assigned && accepted.agentID == agentSession.agent.id)
            let other = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: (try await server.visitor()).token, as: Conversation.self)
            let full = try await server.http.send("POST", "/v1/conversations/\(other.id)/accept", [String: String](), token: agentSession.token)
            #expect(full.status == 409)
            #expect(full.error?.error.code == "cannot_accept")
        }
    }
}
