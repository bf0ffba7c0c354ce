import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

@Suite(.timeLimit(.minutes(2)))
struct TransferTests {
    /// An online agent with an open socket, so routing and transfers can reach them.
    private func onlineAgent(_ server: TestServer, name: String, capacity: Int = 3, role: AgentRole = .agent, queues: [QueueID]? = nil) async throws -> (AgentSession, TestSocket) {
        let session = try await server.agent(name: name, capacity: capacity, queues: queues, role: role)
        let socket = try await server.socket(session.token)
        _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: session.token)
        return (session, socket)
    }

    /// A visitor whose new conversation is assigned to `agent`; the visitor's socket is subscribed.
    private func assignedConversation(_ server: TestServer, agent: TestSocket) async throws -> (VisitorSession, TestSocket, Conversation) {
        let visitor = try await server.visitor(name: "Ada")
        let socket = try await server.socket(visitor.token)
        let opened = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
        try await socket.send(.subscribe(.init(conversationID: opened.id, afterSeq: 0)))
        _ = try await agent.next { if case .conversation(let c) = $0 { c.id == opened.id && c.state == .assigned } else { false } }
        let conversation = try await server.http.get("/v1/conversations/\(opened.id)", token: visitor.token, as: Conversation.self)
        return (visitor, socket, conversation)
    }

    @Test func toAnotherAgent_theVisitorSeesTheHandover_andTheNewAgentCanReply() async throws {
        try await withServer { server in
            let (grace, graceSocket) = try await onlineAgent(server, name: "Grace", capacity: 1)
            let (_, visitorSocket, conversation) = try await assignedConversation(server, agent: graceSocket)
            #expect(conversation.agentID == grace.agent.id)
            let (alan, alanSocket) = try await onlineAgent(server, name: "Alan", capacity: 1)

            // A handover note too long to store changes nothing.
            let tooLong = String(repeating: "x", count: Limits.maxMessageLength + 1)
            let refused = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer",
                                                     TransferRequest(agentID: alan.agent.id, note: tooLong), token: grace.token)
            #expect(refused.status == 413, "too long, as for a message")
            #expect(try await server.http.get("/v1/conversations/\(conversation.id)", token: grace.token, as: Conversation.self).agentID == grace.agent.id)

            let moved = try await server.http.post("/v1/conversations/\(conversation.id)/transfer",
                                                   TransferRequest(agentID: alan.agent.id, note: "  Wants a refund for order 42  "), token: grace.token, as: Conversation.self)
            #expect(moved.state == .assigned && moved.agentID == alan.agent.id)

            // The visitor's transcript tells the story, in one commit, in order.
            let left = try await visitorSocket.nextEvent(in: conversation.id) { if case .participantLeft = $0.body { true } else { false } }
            #expect(left.body == .participantLeft(ParticipantLeft(participant: .agent(grace.agent.id, name: "Grace"), reason: .transferred)))
            let changed = try await visitorSocket.nextEvent(in: conversation.id) { $0.seq == left.seq + 1 }
            #expect(changed.body == .stateChanged(StateChange(from: .assigned, to: .assigned, reason: .transferred, agentID: alan.agent.id)))
            #expect(changed.author.id == grace.agent.id.rawValue)
            let joined = try await visitorSocket.nextEvent(in: conversation.id) { $0.seq == left.seq + 2 }
            #expect(joined.body == .participantJoined(ParticipantJoined(participant: .agent(alan.agent.id, name: "Alan"))))

            // Alan's inbox learns it; he writes, Grace no longer can.
            _ = try await alanSocket.next { if case .conversation(let c) = $0 { c.id == conversation.id && c.agentID == alan.agent.id } else { false } }
            // The handover note is an internal note by Grace for Alan; the visitor never sees it.
            let notes = try await server.http.get("/v1/conversations/\(conversation.id)/notes", token: alan.token, as: NoteList.self)
            #expect(notes.notes.map(\.text) == ["Wants a refund for order 42"] && notes.notes.first?.author == .agent(grace.agent.id, name: "Grace"))
            let reply = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "alan-1", text: "Alan here"), token: alan.token)
            #expect(reply.status == 201)
            let stale = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "grace-1", text: "Still me?"), token: grace.token)
            #expect(stale.status == 409 && stale.error?.error.code == "invalid_state")
            let mine = try await server.http.get("/v1/conversations?view=mine", token: alan.token, as: ConversationList.self)
            #expect(mine.conversations.map(\.id) == [conversation.id])

            // Grace's freed slot takes the next waiting visitor at once.
            let next = try await server.visitor()
            let waiting = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: next.token, as: Conversation.self)
            #expect(waiting.state == .assigned && waiting.agentID == grace.agent.id)
            for socket in [graceSocket, alanSocket, visitorSocket] { await socket.close() }
        }
    }

    @Test func refusals_sayWhy_andChangeNothing() async throws {
        try await withServer { server in
            let (grace, graceSocket) = try await onlineAgent(server, name: "Grace", capacity: 2)
            let (_, _, conversation) = try await assignedConversation(server, agent: graceSocket)
            let before = conversation.lastSeq

            // Offline (no socket) and full agents cannot receive it.
            let absent = try await server.agent(name: "Absent")
            let (full, fullSocket) = try await onlineAgent(server, name: "Full", capacity: 0)
            for (target, expected) in [(absent.agent.id, "not available"), (full.agent.id, "at capacity"), (grace.agent.id, "already")] {
                let reply = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer", TransferRequest(agentID: target), token: grace.token)
                #expect(reply.status == 409 && reply.error?.error.code == "cannot_transfer")
                #expect(reply.error?.error.message.contains(expected) == true, "\(reply.error?.error.message ?? "")")
            }
            // Neither exactly one target, nor another app's agent or queue.
            let (otherApp, otherQueue) = try await server.otherApp()
            let stranger = try await server.agent(name: "Stranger", app: otherApp.app.id)
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer", TransferRequest(), token: grace.token).status == 400)
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer",
                                               TransferRequest(agentID: full.agent.id, queueID: server.demo.queue.id), token: grace.token).status == 400)
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer", TransferRequest(agentID: stranger.agent.id), token: grace.token).status == 404)
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer", TransferRequest(queueID: otherQueue.id), token: grace.token).status == 404)

            // A plain agent who does not hold it may not move it; the visitor and other apps do not even see it.
            let bystander = try await server.agent(name: "Bystander")
            let notTheirs = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer", TransferRequest(queueID: server.demo.queue.id), token: bystander.token)
            #expect(notTheirs.status == 409 && notTheirs.error?.error.code == "invalid_state")
            let visitor = try await server.visitor()
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer", TransferRequest(queueID: server.demo.queue.id), token: visitor.token).status == 404)
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer", TransferRequest(queueID: otherQueue.id), token: stranger.token).status == 404)

            let after = try await server.http.get("/v1/conversations/\(conversation.id)", token: grace.token, as: Conversation.self)
            #expect(after.lastSeq == before && after.agentID == grace.agent.id)
            // Grace's load is still one, as routing sees it.
            let team = try await server.http.get("/v1/team", token: grace.token, as: Team.self)
            #expect(team.agents.first { $0.id == grace.agent.id }?.activeConversations == 1)
            for socket in [graceSocket, fullSocket] { await socket.close() }
        }
    }

    @Test func toAQueue_goesToItsHead_andIsRoutedAgain() async throws {
        try await withServer { server in
            let billing = try await server.http.post("/v1/admin/apps/\(server.appID)/queues", QueueRequest(name: "Billing"), token: server.adminToken, as: Queue.self)
            let (grace, graceSocket) = try await onlineAgent(server, name: "Grace", capacity: 1)
            let (_, visitorSocket, conversation) = try await assignedConversation(server, agent: graceSocket)
            // Someone already waits in Billing; the transferred conversation goes ahead of them.
            let waiter = try await server.visitor()
            let waiting = try await server.http.post("/v1/conversations", OpenConversationRequest(queueID: billing.id), token: waiter.token, as: Conversation.self)
            #expect(waiting.queuePosition == 1)

            let moved = try await server.http.post("/v1/conversations/\(conversation.id)/transfer", TransferRequest(queueID: billing.id), token: grace.token, as: Conversation.self)
            #expect(moved.state == .queued && moved.queueID == billing.id && moved.agentID == nil && moved.queuePosition == 1)
            let left = try await visitorSocket.nextEvent(in: conversation.id) { if case .participantLeft = $0.body { true } else { false } }
            #expect(left.body == .participantLeft(ParticipantLeft(participant: .agent(grace.agent.id, name: "Grace"), reason: .transferred)))
            let changed = try await visitorSocket.nextEvent(in: conversation.id) { $0.seq == left.seq + 1 }
            #expect(changed.body == .stateChanged(StateChange(from: .assigned, to: .queued, reason: .transferred, queueID: billing.id)))
            _ = try await visitorSocket.next { if case .queuePosition(let p) = $0 { p.conversationID == conversation.id && p.position == 1 } else { false } }

            // A billing agent comes online and gets the transferred one first.
            let (billingAgent, billingSocket) = try await onlineAgent(server, name: "Biller", capacity: 1, queues: [billing.id])
            _ = try await billingSocket.next { if case .conversation(let c) = $0 { c.id == conversation.id && c.state == .assigned } else { false } }
            let now = try await server.http.get("/v1/conversations/\(conversation.id)", token: grace.token, as: Conversation.self)
            #expect(now.agentID == billingAgent.agent.id)
            let stillWaiting = try await server.http.get("/v1/conversations/\(waiting.id)", token: waiter.token, as: Conversation.self)
            #expect(stillWaiting.state == .queued && stillWaiting.queuePosition == 1)
            for socket in [graceSocket, visitorSocket, billingSocket] { await socket.close() }
        }
    }

    @Test func anAdmin_mayTransferAConversationHeldBySomeoneElse() async throws {
        try await withServer { server in
            let (grace, graceSocket) = try await onlineAgent(server, name: "Grace", capacity: 1)
            let (_, _, conversation) = try await assignedConversation(server, agent: graceSocket)
            let (admin, adminSocket) = try await onlineAgent(server, name: "Boss", capacity: 1, role: .admin, queues: [])
            let moved = try await server.http.post("/v1/conversations/\(conversation.id)/transfer", TransferRequest(agentID: admin.agent.id), token: admin.token, as: Conversation.self)
            #expect(moved.agentID == admin.agent.id)
            let events = try await server.http.get("/v1/conversations/\(conversation.id)/events", token: admin.token, as: EventPage.self).events
            let left = try #require(events.first { if case .participantLeft = $0.body { true } else { false } })
            #expect(left.author.id == grace.agent.id.rawValue)
            let change = try #require(events.first { if case .stateChanged(let c) = $0.body { c.reason == .transferred } else { false } })
            #expect(change.author.id == admin.agent.id.rawValue)
            for socket in [graceSocket, adminSocket] { await socket.close() }
        }
    }
}
