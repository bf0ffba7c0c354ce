import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Conversation lifecycle through commit

extension StoreConformance {
    static func open_startsQueuedWithOpenedEventAtSeq1(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let opened = try await fixture.open(rank: 42, subject: "Refund")
        let conversation = opened.conversation

        #expect(conversation.state == .queued)
        #expect(conversation.agentID == nil)
        #expect(conversation.lastSeq == 1)
        #expect(conversation.appID == fixture.app.id)
        #expect(conversation.queueID == fixture.queue.id)
        #expect(conversation.visitorID == fixture.visitor.id)
        #expect(conversation.subject == "Refund")
        #expect(conversation.attributes == ["plan": "pro"])
        #expect(conversation.queuedAt == conversation.createdAt)
        #expect(opened.isDuplicate == false)

        let event = try #require(opened.events.only)
        #expect(event.seq == 1)
        #expect(event.conversationID == conversation.id)
        #expect(event.author == fixture.visitorParticipant)
        #expect(event.body == .stateChanged(StateChange(from: nil, to: .queued, reason: .opened)))

        #expect(try await fixture.allEvents(conversation.id) == [event], "the returned event is the stored one")
        #expect(try await fixture.stored(conversation.id) == conversation, "the returned conversation is the stored one")
        let active = try #require(await store.activeConversations().first { $0.conversation.id == conversation.id })
        #expect(active.queueRank == 42)
        #expect(active.conversation == conversation)
    }

    static func open_existingIDOrUnknownQueue_isRejected(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let existing = try await fixture.open().conversation
        await expectStoreError(.duplicate, "opening an id twice") {
            try await store.commit(.open(.init(
                id: existing.id, appID: fixture.app.id, queueID: fixture.queue.id, visitorID: fixture.visitor.id, visitorName: nil,
                subject: nil, attributes: [:], queueRank: 1, at: fixture.clock.next())))
        }
        await expectStoreError(.notFound, "a queue of another app") {
            try await fixture.open(queue: fixture.otherAppQueue)
        }
        #expect(try await fixture.allEvents(existing.id).count == 1, "the rejected open stored nothing")
        #expect(try await store.conversations(ConversationQuery(appID: fixture.app.id)).map(\.id) == [existing.id])
    }

    /// Everyone a change names belongs to the change's app.
    ///
    /// Regression (found by this suite, fixed in fce13be): the SQLite store checked the queue's app but
    /// not the visitor's, so a conversation could point at another app's visitor; an unknown visitor
    /// failed with a raw GRDB foreign-key `DatabaseError` instead of a `StoreError`.
    static func open_visitorOfOtherAppOrUnknown_throwsNotFound(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let foreignVisitor = try await store.upsertVisitor(app: fixture.otherApp.id, deviceID: "foreign", profile: VisitorProfile(),
                                                           at: fixture.clock.next())
        for visitorID in [foreignVisitor.id, VisitorID.generate()] {
            await expectStoreError(.notFound, "opening for visitor \(visitorID)") {
                try await store.commit(.open(.init(
                    id: .generate(), appID: fixture.app.id, queueID: fixture.queue.id, visitorID: visitorID, visitorName: nil,
                    subject: nil, attributes: [:], queueRank: 1, at: fixture.clock.next())))
            }
        }
        #expect(try await store.conversations(ConversationQuery(appID: fixture.app.id)) == [])
    }

    /// Regression (found by this suite, fixed in fce13be): assign did not check that the agent belongs
    /// to the app (nor exists), so a conversation could be assigned to another app's agent; an unknown
    /// agent failed with a raw GRDB foreign-key `DatabaseError` instead of a `StoreError`.
    static func assign_agentOfOtherAppOrUnknown_throwsNotFound(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let foreignAgent = Agent(id: .generate(), appID: fixture.otherApp.id, name: "Fay", email: "fay@globex.test", role: .agent,
                                 queueIDs: [fixture.otherAppQueue.id], capacity: 1, availability: .online, isDisabled: false,
                                 createdAt: fixture.clock.next())
        try await store.insertAgent(foreignAgent, passwordHash: "hash-fay")
        let id = try await fixture.open().conversation.id

        for agentID in [foreignAgent.id, AgentID.generate()] {
            await expectStoreError(.notFound, "assigning to agent \(agentID)") {
                try await fixture.assign(id, to: .agent(agentID, name: nil))
            }
        }
        let stored = try await fixture.stored(id)
        #expect(stored.state == .queued)
        #expect(stored.agentID == nil)
        #expect(stored.lastSeq == 1)
    }

    static func assign_queued_addsStateChangedAndParticipantJoinedAtSeq2And3(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let assigned = try await fixture.assign(id)

        #expect(assigned.conversation.state == .assigned)
        #expect(assigned.conversation.agentID == fixture.agent.id)
        #expect(assigned.conversation.queuedAt == nil)
        #expect(assigned.conversation.lastSeq == 3)
        #expect(assigned.events.map(\.seq) == [2, 3])
        #expect(assigned.events.map(\.body) == [
            .stateChanged(StateChange(from: .queued, to: .assigned, reason: .assigned, agentID: fixture.agent.id)),
            .participantJoined(ParticipantJoined(participant: fixture.agentParticipant)),
        ])
        #expect(assigned.events.map(\.author) == [.system, fixture.agentParticipant])
        #expect(try await Array(fixture.allEvents(id).suffix(2)) == assigned.events)
        #expect(try await fixture.stored(id) == assigned.conversation)

        let active = try #require(await store.activeConversations().first { $0.conversation.id == id })
        #expect(active.conversation.state == .assigned)
        #expect(active.queueRank == nil, "an assigned conversation has no queue rank")

        await expectStoreError(.invalidState, "assigning an assigned conversation") {
            try await fixture.assign(id, to: fixture.otherAgentParticipant)
        }
        #expect(try await fixture.stored(id).agentID == fixture.agent.id)
    }

    static func assignOrTransfer_toAnAgentAtCapacity_isRefusedAndChangesNothing(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        // The fixture's agents have capacity 3: fill the first one's slots.
        for _ in 0..<3 { try await fixture.assign(try await fixture.open().conversation.id) }
        let waiting = try await fixture.open().conversation.id
        await expectStoreError(.atCapacity, "a fourth conversation for an agent of capacity 3") {
            try await fixture.assign(waiting)
        }
        let stored = try #require(await store.conversationAndRank(waiting, app: fixture.app.id))
        #expect(stored.conversation.state == .queued && stored.conversation.lastSeq == 1)
        #expect(stored.queueRank != nil, "still ranked in its queue")

        // A transfer to the full agent is refused the same way; the conversation stays with its agent.
        let held = try await fixture.open().conversation.id
        try await fixture.assign(held, to: fixture.otherAgentParticipant)
        await expectStoreError(.atCapacity, "transferring to a full agent") {
            try await fixture.transfer(held, by: fixture.otherAgentParticipant, to: .agent(fixture.agentParticipant))
        }
        #expect(try await fixture.stored(held).agentID == fixture.otherAgent.id)

        // A slot freed is a slot usable.
        let first = try #require(await store.conversations(.init(appID: fixture.app.id, agentID: fixture.agent.id, states: [.assigned], limit: 10)).first)
        try await fixture.end(first.id, by: fixture.agentParticipant)
        #expect(try await fixture.assign(waiting).conversation.agentID == fixture.agent.id)
    }

    static func messages_fromAssignedAgentAndVisitor_areStoredInOrder(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)

        let fromAgent = try await fixture.post(id, by: fixture.agentParticipant, text: "Hi, how can I help?", clientID: "agent-1")
        #expect(fromAgent.events.map(\.brief) == ["4 agent message agent-1 Hi, how can I help?"])
        #expect(fromAgent.events.first?.author == fixture.agentParticipant)
        #expect(fromAgent.conversation.lastSeq == 4)
        #expect(fromAgent.conversation.state == .assigned)

        let fromVisitor = try await fixture.post(id, by: fixture.visitorParticipant, text: "My order is late", clientID: "visitor-1")
        #expect(fromVisitor.events.map(\.brief) == ["5 visitor message visitor-1 My order is late"])
        #expect(fromVisitor.events.first?.author == fixture.visitorParticipant)
        #expect(fromVisitor.conversation.lastSeq == 5)
        #expect(fromVisitor.conversation.updatedAt == fromVisitor.events.first?.createdAt, "updatedAt follows the newest event")

        #expect(try await Array(fixture.allEvents(id).suffix(2)) == fromAgent.events + fromVisitor.events)
        #expect(try await fixture.stored(id) == fromVisitor.conversation)
    }

    static func endByAgent_assigned_endsWithParticipantLeft(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let ended = try await fixture.end(id, by: fixture.agentParticipant)

        #expect(ended.conversation.state == .ended)
        #expect(ended.conversation.agentID == fixture.agent.id, "the agent is kept to show who handled it last")
        #expect(ended.conversation.queuedAt == nil)
        #expect(ended.events.map(\.brief) == [
            "4 agent state_changed assigned->ended ended_by_agent",
            "5 agent participant_left agent \(fixture.agent.id.rawValue) ended",
        ])
        #expect(try await fixture.stored(id) == ended.conversation)
        #expect(try await Array(fixture.allEvents(id).suffix(2)) == ended.events)
        #expect(try await store.activeConversations().contains { $0.conversation.id == id } == false,
                "an ended conversation is not active")
    }

    static func endByVisitor_assigned_endsAndAgentLeaves(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let ended = try await fixture.end(id, by: fixture.visitorParticipant)
        #expect(ended.conversation.state == .ended)
        #expect(ended.events.map(\.brief) == [
            "4 visitor state_changed assigned->ended ended_by_visitor",
            "5 agent participant_left agent \(fixture.agent.id.rawValue) ended",
        ])
        // docs/protocol.md "Conversation life": the agent who leaves is named, as the author too.
        guard case .participantLeft(let left) = ended.events.last?.body else { throw StoreError.notFound("no participant_left") }
        #expect(left.participant.name == fixture.agent.name && ended.events.last?.author.name == fixture.agent.name)
        #expect(try await fixture.stored(id).state == .ended)
    }

    static func visitorMessage_intoEnded_reopensQueuedThenStoresMessage(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        try await fixture.end(id, by: fixture.agentParticipant)

        let reopened = try await fixture.post(id, by: fixture.visitorParticipant, text: "Still broken", clientID: "again", reopenRank: 7)
        #expect(reopened.conversation.state == .queued)
        #expect(reopened.conversation.agentID == nil)
        #expect(reopened.conversation.lastSeq == 7)
        #expect(reopened.conversation.queuedAt == reopened.events.first?.createdAt, "the wait starts at the reopening")
        #expect(reopened.events.map(\.brief) == [
            "6 visitor state_changed ended->queued reopened",
            "7 visitor message again Still broken",
        ])
        #expect(try await fixture.stored(id) == reopened.conversation)
        #expect(try await Array(fixture.allEvents(id).suffix(2)) == reopened.events)

        let active = try #require(await store.activeConversations().first { $0.conversation.id == id })
        #expect(active.queueRank == 7, "a reopened conversation waits at the rank given")
        #expect(active.conversation.state == .queued)
    }

    static func endByVisitor_queued_isCancelled(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let cancelled = try await fixture.end(id, by: fixture.visitorParticipant)

        #expect(cancelled.conversation.state == .ended)
        #expect(cancelled.conversation.queuedAt == nil)
        #expect(cancelled.events.map(\.body) == [.stateChanged(StateChange(from: .queued, to: .ended, reason: .cancelled))])
        #expect(cancelled.events.map(\.seq) == [2])
        #expect(try await fixture.stored(id).state == .ended)
        #expect(try await store.activeConversations().contains { $0.conversation.id == id } == false)
    }

    static func end_ended_isNoOpWithoutEvents(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let ended = try await fixture.end(id, by: fixture.agentParticipant).conversation

        for by in [fixture.agentParticipant, fixture.visitorParticipant] {
            let again = try await fixture.end(id, by: by)
            #expect(again.events.isEmpty, "ending an ended conversation by \(by.role) stores nothing")
            #expect(again.conversation.state == .ended)
            #expect(again.conversation.lastSeq == ended.lastSeq)
        }
        #expect(try await fixture.stored(id) == ended, "not even updatedAt moves")
        #expect(try await fixture.allEvents(id).count == 5)
    }

    static func agentNotAssigned_cannotPostOrEnd(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id

        // Nobody is assigned yet.
        await expectStoreError(.invalidState, "an agent posting into a queued conversation") {
            try await fixture.post(id, by: fixture.agentParticipant, text: "early")
        }
        await expectStoreError(.invalidState, "an agent ending a queued conversation") {
            try await fixture.end(id, by: fixture.agentParticipant)
        }

        // Assigned to someone else.
        try await fixture.assign(id)
        await expectStoreError(.invalidState, "another agent posting") {
            try await fixture.post(id, by: fixture.otherAgentParticipant, text: "not mine")
        }
        await expectStoreError(.invalidState, "another agent ending") {
            try await fixture.end(id, by: fixture.otherAgentParticipant)
        }
        await expectStoreError(.invalidState, "another agent requeueing") {
            try await fixture.requeue(id, agent: fixture.otherAgentParticipant, rank: 1)
        }

        #expect(try await fixture.stored(id).lastSeq == 3, "the rejected changes stored nothing")
        #expect(try await fixture.stored(id).state == .assigned)
        #expect(try await fixture.stored(id).agentID == fixture.agent.id)
        #expect(try await fixture.allEvents(id).count == 3)
    }

    static func requeue_assigned_leavesOfflineAndStoresGivenRank(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open(rank: 500).conversation.id
        try await fixture.assign(id)
        let requeued = try await fixture.requeue(id, rank: -3)

        #expect(requeued.conversation.state == .queued)
        #expect(requeued.conversation.agentID == nil)
        #expect(requeued.conversation.queuedAt == requeued.events.first?.createdAt)
        #expect(requeued.events.map(\.brief) == [
            "4 agent participant_left agent \(fixture.agent.id.rawValue) offline",
            "5 system state_changed assigned->queued requeued",
        ])
        #expect(try await fixture.stored(id) == requeued.conversation)

        let active = try #require(await store.activeConversations().first { $0.conversation.id == id })
        #expect(active.queueRank == -3, "the requeue rank replaces the rank the conversation opened with")
        #expect(active.conversation.state == .queued)

        await expectStoreError(.invalidState, "requeueing a queued conversation") {
            try await fixture.requeue(id, rank: 1)
        }
    }

    static func activeConversations_listQueuedAndAssignedOfEveryApp(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let queued = try await fixture.open(rank: 20).conversation.id
        let assigned = try await fixture.open(rank: 10).conversation.id
        try await fixture.assign(assigned)
        let ended = try await fixture.open(rank: 5).conversation.id
        try await fixture.end(ended, by: fixture.visitorParticipant)
        let otherVisitor = try await store.upsertVisitor(app: fixture.otherApp.id, deviceID: "d", profile: .init(), at: fixture.clock.next())
        let elsewhere = try await store.commit(.open(.init(
            id: .generate(), appID: fixture.otherApp.id, queueID: fixture.otherAppQueue.id, visitorID: otherVisitor.id,
            visitorName: nil, subject: nil, attributes: [:], queueRank: 30, at: fixture.clock.next()))).conversation.id

        let active = try await store.activeConversations()
        #expect(Set(active.map(\.conversation.id)) == [queued, assigned, elsewhere])
        #expect(active.first { $0.conversation.id == queued }?.queueRank == 20)
        #expect(active.first { $0.conversation.id == elsewhere }?.queueRank == 30)
    }

    static func conversationsQuery_filtersByVisitorAgentStateNewestFirst(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let older = try await fixture.open().conversation.id
        let newer = try await fixture.open().conversation.id
        let others = try await fixture.open(by: fixture.otherVisitor).conversation.id
        try await fixture.assign(others)
        // Activity in `older` makes it the most recently updated.
        try await fixture.post(older, by: fixture.visitorParticipant, text: "bump")

        let all = try await store.conversations(ConversationQuery(appID: fixture.app.id))
        #expect(all.map(\.id) == [older, others, newer], "newest activity first")

        let mine = try await store.conversations(ConversationQuery(appID: fixture.app.id, visitorID: fixture.visitor.id))
        #expect(mine.map(\.id) == [older, newer])

        let agents = try await store.conversations(ConversationQuery(appID: fixture.app.id, agentID: fixture.agent.id))
        #expect(agents.map(\.id) == [others])

        let queued = try await store.conversations(ConversationQuery(appID: fixture.app.id, states: [.queued]))
        #expect(queued.map(\.id) == [older, newer])
        let assignedOrEnded = try await store.conversations(ConversationQuery(appID: fixture.app.id, states: [.assigned, .ended]))
        #expect(assignedOrEnded.map(\.id) == [others])

        let limited = try await store.conversations(ConversationQuery(appID: fixture.app.id, limit: 2))
        #expect(limited.map(\.id) == [older, others])
    }
}

extension Collection {
    /// The single element, or nil when there are none or several.
    var only: Element? { count == 1 ? first : nil }
}
