import Foundation
import ParleyCore
import ParleyStore
import ParleyTestSupport
import ParleyStoreSQLite
import Testing

@Suite(.timeLimit(.minutes(2)))
struct ConversationFlowTests {
    @Test func visitorAndAgent_converseOverWebSockets_withGapFreeSeqs() async throws {
        try await withServer { server in
            let visitorSession = try await server.visitor(name: "Ann")
            let visitor = try await server.socket(visitorSession.token)
            let conversation = try await server.http.post(
                "/v1/conversations", OpenConversationRequest(subject: "My order"), token: visitorSession.token, as: Conversation.self)
            #expect(conversation.state == .queued)
            #expect(conversation.queuePosition == 1)
            try await visitor.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            let opened = try await visitor.nextEvent(in: conversation.id)
            #expect(opened.seq == 1)
            guard case .stateChanged(let change) = opened.body else { throw TestFailure("expected state_changed, got \(opened.body)") }
            #expect(change.to == .queued && change.reason == .opened)
            let position = try await visitor.next { if case .queuePosition = $0 { true } else { false } }
            #expect(position == .queuePosition(.init(conversationID: conversation.id, position: 1)))

            // The agent comes online: the conversation is assigned and the agent joins.
            let agentSession = try await server.agent(name: "Bob")
            let agent = try await server.socket(agentSession.token)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agentSession.token)
            let assigned = try await visitor.nextEvent(in: conversation.id)
            guard case .stateChanged(let assignment) = assigned.body else { throw TestFailure("expected assignment, got \(assigned.body)") }
            #expect(assignment.to == .assigned && assignment.agentID == agentSession.agent.id)
            let joined = try await visitor.nextEvent(in: conversation.id)
            #expect(joined.body == .participantJoined(.init(participant: .agent(agentSession.agent.id, name: "Bob"))))
            let inbox = try await agent.next { if case .conversation(let c) = $0 { c.id == conversation.id && c.state == .assigned } else { false } }
            guard case .conversation(let summary) = inbox else { throw TestFailure("no inbox frame") }
            #expect(summary.agentID == agentSession.agent.id)

            // Messages both ways, acked with their seq.
            try await agent.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            let history = try await agent.next { if case .subscribed = $0 { true } else { false } }
            #expect(history == .subscribed(.init(conversationID: conversation.id, lastSeq: 3, epoch: try await server.store.epoch())))
            try await visitor.send(.send(.init(ref: "v1", conversationID: conversation.id, clientMessageID: "v-1", text: "Where is my parcel?")))
            let ack = try await visitor.next { if case .ack = $0 { true } else { false } }
            guard case .ack(let visitorAck) = ack else { throw TestFailure("no ack") }
            #expect(visitorAck.ref == "v1" && visitorAck.duplicate == false && visitorAck.event.seq == 4)
            let atAgent = try await agent.nextEvent(in: conversation.id) { $0.message != nil }
            #expect(atAgent.message?.text == "Where is my parcel?" && atAgent.seq == 4)

            try await agent.send(.typing(.init(conversationID: conversation.id, isTyping: true)))
            let typing = try await visitor.next { if case .typing = $0 { true } else { false } }
            #expect(typing == .typing(.init(conversationID: conversation.id, participant: .agent(agentSession.agent.id, name: "Bob"), isTyping: true)))
            try await agent.send(.send(.init(ref: "a1", conversationID: conversation.id, clientMessageID: "a-1", text: "On its way!")))
            let echo = try await visitor.nextEvent(in: conversation.id) { $0.message != nil }
            #expect(echo.seq == 4 && echo.author.role == .visitor)
            let reply = try await visitor.nextEvent(in: conversation.id) { $0.message != nil }
            #expect(reply.message?.text == "On its way!" && reply.author.role == .agent && reply.seq == 5)

            // The agent ends it.
            let ended = try await server.http.post("/v1/conversations/\(conversation.id)/end", [String: String](), token: agentSession.token, as: Conversation.self)
            #expect(ended.state == .ended)
            let endEvent = try await visitor.nextEvent(in: conversation.id) { if case .stateChanged = $0.body { true } else { false } }
            #expect(endEvent.body == .stateChanged(.init(from: .assigned, to: .ended, reason: .endedByAgent)))

            // Everything, read back, is numbered 1…n without a gap.
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=0", token: visitorSession.token, as: EventPage.self)
            #expect(page.events.map(\.seq) == Array(1...page.lastSeq))
            #expect(page.events.map(\.body.type) == [
                "state_changed", "state_changed", "participant_joined", "message", "message", "state_changed", "participant_left",
            ])
            await visitor.close()
            await agent.close()
        }
    }

    @Test func visitorWritingIntoEndedConversation_reopensItIntoItsQueue() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            let cancelled = try await server.http.post("/v1/conversations/\(conversation.id)/end", [String: String](), token: session.token, as: Conversation.self)
            #expect(cancelled.state == .ended)
            let reply = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages",
                                                   SendMessageRequest(clientMessageID: "again", text: "Still there?"), token: session.token)
            #expect(reply.status == 201)
            let reopened = try await server.http.get("/v1/conversations/\(conversation.id)", token: session.token, as: Conversation.self)
            #expect(reopened.state == .queued)
            #expect(reopened.queuePosition == 1)
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events", token: session.token, as: EventPage.self)
            let reasons = page.events.compactMap { event -> StateChange.Reason? in
                if case .stateChanged(let change) = event.body { return change.reason }
                return nil
            }
            #expect(reasons == [.opened, .cancelled, .reopened])
        }
    }

    @Test func sameDevice_isTheSameVisitorWithTheSameHistory() async throws {
        try await withServer { server in
            let first = try await server.visitor("device-stable-001")
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "Hi"), token: first.token, as: Conversation.self)
            let second = try await server.visitor("device-stable-001", name: "Renamed")
            #expect(second.visitor.id == first.visitor.id)
            #expect(second.visitor.name == "Renamed")
            let list = try await server.http.get("/v1/conversations", token: second.token, as: ConversationList.self)
            #expect(list.conversations.map(\.id) == [conversation.id])
        }
    }

    @Test func history_pagesBackwardAndForwardBySeq() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            for index in 1...12 {
                _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                               SendMessageRequest(clientMessageID: "m\(index)", text: "message \(index)"), token: session.token,
                                               as: SendMessageResponse.self)
            }
            let newest = try await server.http.get("/v1/conversations/\(conversation.id)/events?before=14&limit=5", token: session.token, as: EventPage.self)
            #expect(newest.events.map(\.seq) == [9, 10, 11, 12, 13])
            #expect(newest.hasMore)
            let older = try await server.http.get("/v1/conversations/\(conversation.id)/events?before=9&limit=5", token: session.token, as: EventPage.self)
            #expect(older.events.map(\.seq) == [4, 5, 6, 7, 8])
            let forward = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=10&limit=2", token: session.token, as: EventPage.self)
            #expect(forward.events.map(\.seq) == [11, 12])
            #expect(forward.hasMore && forward.lastSeq == 13)
        }
    }

    @Test func longPoll_waitsForTheNextEvent_andReturnsEmptyAfterTheWait() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            let started = ContinuousClock.now
            let empty = try await server.http.get("/v1/conversations/\(conversation.id)/events?after=1&wait=1", token: session.token, as: EventPage.self)
            #expect(empty.events.isEmpty)
            #expect(ContinuousClock.now - started >= .milliseconds(900))

            async let waited = server.http.get("/v1/conversations/\(conversation.id)/events?after=1&wait=20", token: session.token, as: EventPage.self)
            try await Task.sleep(for: .milliseconds(300))
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                           SendMessageRequest(clientMessageID: "lp", text: "wake up"), token: session.token, as: SendMessageResponse.self)
            let page = try await waited
            #expect(page.events.map(\.seq) == [2])
            #expect(page.events.first?.message?.text == "wake up")
        }
    }
}

@Suite(.timeLimit(.minutes(2)))
struct GroupCommitTests {
    @Test func concurrentSends_shareTransactions_andEachIsAckedWithItsOwnSeq() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            let before = try #require(server.sqlite).groupCommitStatistics
            let sockets = try await withThrowingTaskGroup(of: TestSocket.self) { group in
                for _ in 0..<8 { group.addTask { try await server.socket(session.token) } }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            // 8 sockets × 25 sends in flight at once.
            for (index, socket) in sockets.enumerated() {
                for message in 0..<25 {
                    try await socket.send(.send(.init(ref: "\(message)", conversationID: conversation.id, clientMessageID: "g\(index)-\(message)", text: "m")))
                }
            }
            var seqs: [Int64] = []
            for socket in sockets {
                for _ in 0..<25 {
                    guard case .ack(let ack) = try await socket.next(where: { if case .ack = $0 { true } else { false } }) else { continue }
                    seqs.append(ack.event.seq)
                }
            }
            #expect(seqs.sorted() == Array(2...201))
            let after = try #require(server.sqlite).groupCommitStatistics
            let units = after.units - before.units, transactions = after.transactions - before.transactions
            print("group commit: \(units) changes in \(transactions) transactions, largest batch \(after.largestBatch)")
            #expect(units == 200)
            #expect(transactions < units, "every send had its own transaction and fsync")
            for socket in sockets { await socket.close() }
        }
    }
}
