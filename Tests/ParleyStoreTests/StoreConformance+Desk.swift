import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Transfers

extension StoreConformance {
    static func transfer_toAgent_storesLeftChangedJoined_andReassigns(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let commit = try await fixture.transfer(id, to: .agent(fixture.otherAgentParticipant))
        #expect(commit.events.map(\.brief) == [
            "4 agent participant_left agent \(fixture.agent.id) transferred",
            "5 agent state_changed assigned->assigned transferred \(fixture.otherAgent.id)",
            "6 agent participant_joined agent \(fixture.otherAgent.id)",
        ])
        #expect(commit.conversation.state == .assigned && commit.conversation.agentID == fixture.otherAgent.id)
        #expect(try await fixture.stored(id) == commit.conversation)
        // The new agent writes; the old one may not.
        try await fixture.post(id, by: fixture.otherAgentParticipant, text: "Bob here")
        await expectStoreError(.invalidState) { try await fixture.post(id, by: fixture.agentParticipant, text: "still me") }
    }

    static func transfer_toQueue_requeuesInThatQueueAtTheRank(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let commit = try await fixture.transfer(id, to: .queue(fixture.secondQueue.id, rank: 5))
        #expect(commit.events.map(\.brief) == [
            "4 agent participant_left agent \(fixture.agent.id) transferred",
            "5 agent state_changed assigned->queued transferred \(fixture.secondQueue.id)",
        ])
        let stored = try await fixture.stored(id)
        #expect(stored.state == .queued && stored.agentID == nil && stored.queueID == fixture.secondQueue.id && stored.queuedAt != nil)
        let active = try await store.activeConversations().first { $0.conversation.id == id }
        #expect(active?.queueRank == 5)
    }

    static func transfer_refusals_changeNothing(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let queued = try await fixture.open().conversation.id
        await expectStoreError(.invalidState, "a queued conversation") {
            try await fixture.transfer(queued, to: .agent(fixture.otherAgentParticipant))
        }
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let before = try await fixture.stored(id)
        await expectStoreError(.invalidState, "not the holder, not an admin") {
            try await fixture.transfer(id, by: fixture.otherAgentParticipant, to: .queue(fixture.queue.id, rank: 1))
        }
        await expectStoreError(.invalidState, "to the agent who holds it") {
            try await fixture.transfer(id, to: .agent(fixture.agentParticipant))
        }
        await expectStoreError(.notFound, "another app's queue") {
            try await fixture.transfer(id, to: .queue(fixture.otherAppQueue.id, rank: 1))
        }
        await expectStoreError(.notFound, "an unknown agent") {
            try await fixture.transfer(id, to: .agent(.agent(.generate(), name: "Nobody")))
        }
        await expectStoreError(.notFound, "through another app") {
            try await fixture.transfer(id, to: .queue(fixture.otherAppQueue.id, rank: 1), app: fixture.otherApp.id)
        }
        #expect(try await fixture.stored(id) == before)
        // An admin may move it even though another agent holds it.
        let moved = try await fixture.transfer(id, by: fixture.otherAgentParticipant, byAdmin: true, to: .queue(fixture.queue.id, rank: 1))
        #expect(moved.conversation.state == .queued)
    }
}

// MARK: - Internal notes

extension StoreConformance {
    static func notes_numberedPerConversation_idempotent_andOutsideTheEvents(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let otherID = try await fixture.open().conversation.id
        func add(_ conversation: ConversationID, _ clientID: String, _ text: String, by: Participant? = nil, app: AppID? = nil) async throws -> NoteCommit {
            try await store.addNote(NewNote(conversationID: conversation, appID: app ?? fixture.app.id, author: by ?? fixture.agentParticipant,
                                            clientNoteID: clientID, text: text, at: fixture.clock.next()))
        }
        let first = try await add(id, "n-1", "Checked the order")
        let second = try await add(id, "n-2", "Refund approved", by: fixture.otherAgentParticipant)
        let elsewhere = try await add(otherID, "n-1", "Another conversation")
        #expect([first.note.seq, second.note.seq, elsewhere.note.seq] == [1, 2, 1])
        #expect(first.isDuplicate == false && first.note.author == fixture.agentParticipant)

        let again = try await add(id, "n-1", "Checked the order")
        #expect(again.isDuplicate && again.note == first.note)
        await expectStoreError(.idempotencyConflict) { try await add(id, "n-1", "Other text") }
        await expectStoreError(.idempotencyConflict) { try await add(id, "n-1", "Checked the order", by: fixture.otherAgentParticipant) }
        await expectStoreError(.notFound) { try await add(id, "n-9", "via another app", app: fixture.otherApp.id) }

        #expect(try await store.notes(id, app: fixture.app.id, afterSeq: 0, limit: 10) == [first.note, second.note])
        #expect(try await store.notes(id, app: fixture.app.id, afterSeq: 1, limit: 10) == [second.note])
        #expect(try await store.notes(id, app: fixture.otherApp.id, afterSeq: 0, limit: 10).isEmpty)
        // Notes are not events: the conversation's seq and activity did not move.
        let conversation = try await fixture.stored(id)
        #expect(conversation.lastSeq == 1)
        #expect(try await fixture.allEvents(id).allSatisfy { $0.message == nil })
    }
}

// MARK: - Canned responses

extension StoreConformance {
    static func cannedResponses_crudByApp_withUniqueShortcuts(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        func response(_ shortcut: String, app: AppID? = nil, owner: AgentID? = nil) -> CannedResponse {
            let at = fixture.clock.next()
            return CannedResponse(id: .generate(), appID: app ?? fixture.app.id, ownerID: owner, shortcut: shortcut, title: "Title \(shortcut)",
                                  text: "Text of \(shortcut)", createdAt: at, updatedAt: at)
        }
        let refund = response("refund")
        let hello = response("hello")
        try await store.insertCannedResponse(refund)
        try await store.insertCannedResponse(hello)
        try await store.insertCannedResponse(response("refund", app: fixture.otherApp.id))
        await expectStoreError(.duplicate) { try await store.insertCannedResponse(response("refund")) }

        #expect(try await store.cannedResponses(app: fixture.app.id, owner: nil) == [hello, refund])
        #expect(try await store.cannedResponse(refund.id, app: fixture.otherApp.id, owner: nil) == nil)

        var edited = refund
        edited.text = "New text"
        edited.updatedAt = fixture.clock.next()
        try await store.updateCannedResponse(edited)
        #expect(try await store.cannedResponse(refund.id, app: fixture.app.id, owner: nil) == edited)
        var clash = edited
        clash.shortcut = "hello"
        await expectStoreError(.duplicate) { try await store.updateCannedResponse(clash) }
        var stranger = edited
        stranger.appID = fixture.otherApp.id
        await expectStoreError(.notFound) { try await store.updateCannedResponse(stranger) }

        // An agent's own set: the team's shortcuts are free there, its own are not; each set sees only itself.
        let mine = response("refund", owner: fixture.agent.id)
        try await store.insertCannedResponse(mine)
        try await store.insertCannedResponse(response("refund", owner: fixture.otherAgent.id))
        await expectStoreError(.duplicate) { try await store.insertCannedResponse(response("refund", owner: fixture.agent.id)) }
        #expect(try await store.cannedResponses(app: fixture.app.id, owner: fixture.agent.id) == [mine])
        #expect(try await store.cannedResponses(app: fixture.app.id, owner: nil) == [hello, edited])
        #expect(try await store.cannedResponse(mine.id, app: fixture.app.id, owner: nil) == nil, "not the team's")
        #expect(try await store.cannedResponse(mine.id, app: fixture.app.id, owner: fixture.otherAgent.id) == nil, "not a colleague's")
        var theirs = mine
        theirs.ownerID = fixture.otherAgent.id
        theirs.text = "Taken over"
        await expectStoreError(.notFound) { try await store.updateCannedResponse(theirs) }
        var teamCopy = mine
        teamCopy.ownerID = nil
        await expectStoreError(.notFound) { try await store.updateCannedResponse(teamCopy) }
        #expect(try await store.deleteCannedResponse(mine.id, app: fixture.app.id, owner: nil) == false)
        #expect(try await store.deleteCannedResponse(mine.id, app: fixture.app.id, owner: fixture.agent.id) == true)

        #expect(try await store.deleteCannedResponse(refund.id, app: fixture.otherApp.id, owner: nil) == false)
        #expect(try await store.deleteCannedResponse(refund.id, app: fixture.app.id, owner: nil) == true)
        #expect(try await store.cannedResponses(app: fixture.app.id, owner: nil) == [hello])
    }
}
