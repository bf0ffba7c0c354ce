import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Idempotent sends

extension StoreConformance {
    static func postMessage_sameClientIDSameContent_returnsOriginalAsDuplicate(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let original = try await fixture.post(id, by: fixture.visitorParticipant, text: "Where is my parcel?", clientID: "m-1")
        let originalEvent = try #require(original.events.only)
        #expect(original.isDuplicate == false)
        try await fixture.post(id, by: fixture.visitorParticipant, text: "Order 123", clientID: "m-2")
        let before = try await fixture.stored(id)
        #expect(before.lastSeq == 3)

        let resent = try await fixture.post(id, by: fixture.visitorParticipant, text: "Where is my parcel?", clientID: "m-1")
        #expect(resent.isDuplicate == true)
        #expect(resent.events == [originalEvent], "the original event, with its seq and time, is returned")
        #expect(resent.conversation.lastSeq == 3)
        #expect(try await fixture.stored(id) == before, "a duplicate changes nothing, not even updatedAt")
        #expect(try await fixture.allEvents(id).map(\.seq) == [1, 2, 3])

        // The same holds for an agent's resend.
        try await fixture.assign(id)
        let agentOriginal = try await fixture.post(id, by: fixture.agentParticipant, text: "On its way", clientID: "a-1")
        let agentResent = try await fixture.post(id, by: fixture.agentParticipant, text: "On its way", clientID: "a-1")
        #expect(agentResent.isDuplicate == true)
        #expect(agentResent.events == agentOriginal.events)
        #expect(try await fixture.stored(id).lastSeq == 6)
    }

    static func postMessage_sameClientIDOtherContent_throwsIdempotencyConflict(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        try await fixture.post(id, by: fixture.visitorParticipant, text: "first text", clientID: "m-1")
        let before = try await fixture.stored(id)

        await expectStoreError(.idempotencyConflict, "same client id, other text") {
            try await fixture.post(id, by: fixture.visitorParticipant, text: "second text", clientID: "m-1")
        }
        await expectStoreError(.idempotencyConflict, "same client id and text from another author") {
            try await fixture.post(id, by: fixture.agentParticipant, text: "first text", clientID: "m-1")
        }
        #expect(try await fixture.stored(id) == before, "a conflict stores nothing")
        #expect(try await fixture.allEvents(id).compactMap(\.message) == [MessageBody(clientMessageID: "m-1", text: "first text")])
    }

    static func pushPage_isIdempotentByClientID_sharedWithMessages(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let page = PagePush(clientMessageID: "p-1", url: "https://help.example.com/returns", title: "Returns")
        func push(_ page: PagePush, by agent: Participant? = nil) async throws -> ConversationCommit {
            try await store.commit(.pushPage(.init(conversationID: id, appID: fixture.app.id, agent: agent ?? fixture.agentParticipant,
                                                   page: page, at: fixture.clock.next())))
        }
        let first = try await push(page)
        let event = try #require(first.events.only)
        #expect(event.body == .pagePushed(page) && !first.isDuplicate)
        let again = try await push(page)
        #expect(again.isDuplicate && again.events == [event])
        let before = try await fixture.stored(id)
        await expectStoreError(.idempotencyConflict, "same id, other page") {
            try await push(PagePush(clientMessageID: "p-1", url: "https://help.example.com/other", title: "Returns"))
        }
        await expectStoreError(.idempotencyConflict, "a message under a pushed page's id") {
            try await fixture.post(id, by: fixture.agentParticipant, text: "Returns", clientID: "p-1")
        }
        await expectStoreError(.invalidState, "an agent who is not assigned") {
            try await push(PagePush(clientMessageID: "p-2", url: "https://help.example.com/", title: "Help"), by: fixture.otherAgentParticipant)
        }
        #expect(try await fixture.stored(id) == before, "refusals store nothing")
        #expect(try await store.events(id, app: fixture.app.id, afterSeq: 0, limit: 10).last == event, "read back as stored")
    }

    static func postMessage_concurrentResends_storeOneMessage(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let results = try await withThrowingTaskGroup(of: ConversationCommit.self) { group in
            for _ in 0..<25 {
                group.addTask { try await fixture.post(id, by: fixture.visitorParticipant, text: "once", clientID: "retry-me") }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results.count(where: { !$0.isDuplicate }) == 1, "exactly one send stores the message")
        #expect(Set(results.flatMap(\.events)).count == 1, "every send returns the same event")
        #expect(results.flatMap(\.events).allSatisfy { $0.seq == 2 })
        #expect(try await fixture.allEvents(id).map(\.seq) == [1, 2])
        #expect(try await fixture.stored(id).lastSeq == 2)
    }
}

// MARK: - Scoping by app and visitor

extension StoreConformance {
    static func reads_otherApp_returnNothing(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.post(id, by: fixture.visitorParticipant, text: "secret")
        let other = fixture.otherApp.id

        // The conversation is readable in its own app…
        #expect(try await store.conversation(id, app: fixture.app.id) != nil)
        #expect(try await store.events(id, app: fixture.app.id, afterSeq: 0, limit: 10).count == 2)
        #expect(try await store.events(id, app: fixture.app.id, beforeSeq: 100, limit: 10).count == 2)
        // …and nowhere else.
        #expect(try await store.conversation(id, app: other) == nil)
        #expect(try await store.events(id, app: other, afterSeq: 0, limit: 10) == [])
        #expect(try await store.events(id, app: other, beforeSeq: 100, limit: 10) == [])
        #expect(try await store.events(id, app: other, beforeSeq: .max, limit: 10) == [])
        #expect(try await store.conversations(ConversationQuery(appID: other)) == [])
        #expect(try await store.conversations(ConversationQuery(appID: other, visitorID: fixture.visitor.id)) == [])
        #expect(try await store.conversations(ConversationQuery(appID: other, states: [.queued])) == [])
        #expect(try await store.queues(app: other).contains { $0.id == fixture.queue.id } == false)
        #expect(try await store.agents(app: other).contains { $0.id == fixture.agent.id } == false)
    }

    static func commit_otherApp_throwsNotFound(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let other = fixture.otherApp.id
        let before = try await fixture.stored(id)

        await expectStoreError(.notFound, "post") { try await fixture.post(id, by: fixture.visitorParticipant, text: "x", app: other) }
        await expectStoreError(.notFound, "agent post") { try await fixture.post(id, by: fixture.agentParticipant, text: "x", app: other) }
        await expectStoreError(.notFound, "assign") { try await fixture.assign(id, app: other) }
        await expectStoreError(.notFound, "requeue") { try await fixture.requeue(id, rank: 1, app: other) }
        await expectStoreError(.notFound, "end") { try await fixture.end(id, by: fixture.agentParticipant, app: other) }
        await expectStoreError(.notFound, "mark read") { try await fixture.markRead(id, by: fixture.agentParticipant, seq: 1, app: other) }
        await expectStoreError(.notFound, "open in another app's queue") {
            try await store.commit(.open(.init(
                id: .generate(), appID: other, queueID: fixture.queue.id, visitorID: fixture.visitor.id, visitorName: nil,
                subject: nil, attributes: [:], queueRank: 1, at: fixture.clock.next())))
        }
        await expectStoreError(.notFound, "a conversation that does not exist") {
            try await fixture.post(ConversationID.generate(), by: fixture.visitorParticipant, text: "x")
        }

        #expect(try await fixture.stored(id) == before, "nothing changed")
        #expect(try await fixture.allEvents(id).count == 3)
        #expect(try await store.conversations(ConversationQuery(appID: other)) == [])
    }

    static func otherVisitor_postEndOrRead_throwsNotFound(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let intruder = fixture.otherVisitorParticipant

        await expectStoreError(.notFound, "posting while queued") { try await fixture.post(id, by: intruder, text: "hi") }
        await expectStoreError(.notFound, "cancelling while queued") { try await fixture.end(id, by: intruder) }
        await expectStoreError(.notFound, "marking read") { try await fixture.markRead(id, by: intruder, seq: 1) }
        try await fixture.assign(id)
        await expectStoreError(.notFound, "posting while assigned") { try await fixture.post(id, by: intruder, text: "hi") }
        await expectStoreError(.notFound, "ending while assigned") { try await fixture.end(id, by: intruder) }
        try await fixture.end(id, by: fixture.agentParticipant)
        await expectStoreError(.notFound, "posting (reopening) while ended") { try await fixture.post(id, by: intruder, text: "hi") }

        let stored = try await fixture.stored(id)
        #expect(stored.state == .ended, "the intruder did not reopen it")
        #expect(stored.lastSeq == 5)
        #expect(try await store.readSeq(id, participant: intruder) == 0)
    }

    /// Regression (found by this suite, fixed in f11a8dd): the store looked up the client message id
    /// before it checked that the author may write into the conversation, so another visitor who
    /// reused a client message id learned that the conversation exists (`idempotencyConflict`).
    static func otherVisitor_reusingClientMessageID_throwsNotFound(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.post(id, by: fixture.visitorParticipant, text: "mine", clientID: "shared-id")

        await expectStoreError(.notFound, "same client id, same text, other visitor") {
            try await fixture.post(id, by: fixture.otherVisitorParticipant, text: "mine", clientID: "shared-id")
        }
        await expectStoreError(.notFound, "same client id, other text, other visitor") {
            try await fixture.post(id, by: fixture.otherVisitorParticipant, text: "theirs", clientID: "shared-id")
        }
        #expect(try await fixture.stored(id).lastSeq == 2)
    }

    /// Regression (found by this suite, fixed in f11a8dd): ending an ended conversation returned the
    /// no-op before the visitor check, so another visitor got a successful commit carrying the
    /// conversation (subject, attributes, ids) instead of `notFound`.
    static func otherVisitor_endingEnded_throwsNotFound(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.end(id, by: fixture.visitorParticipant)

        await expectStoreError(.notFound, "another visitor ending an ended conversation") {
            try await fixture.end(id, by: fixture.otherVisitorParticipant)
        }
    }
}

// MARK: - History paging

extension StoreConformance {
    /// Opens a conversation and posts `messages` messages: events 1 (opened) through `messages + 1`.
    private static func conversation(withMessages messages: Int, _ fixture: Fixture) async throws -> ConversationID {
        let id = try await fixture.open().conversation.id
        for index in 1...messages {
            try await fixture.post(id, by: fixture.visitorParticipant, text: "message \(index)", clientID: "c\(index)")
        }
        return id
    }

    static func eventsAfterSeq_returnOldestFirstWindowAfterCursor(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await conversation(withMessages: 9, fixture)  // seqs 1...10
        func seqs(after: Int64, limit: Int) async throws -> [Int64] {
            try await store.events(id, app: fixture.app.id, afterSeq: after, limit: limit).map(\.seq)
        }
        #expect(try await seqs(after: 0, limit: 3) == [1, 2, 3])
        #expect(try await seqs(after: 3, limit: 3) == [4, 5, 6])
        #expect(try await seqs(after: 6, limit: 3) == [7, 8, 9])
        #expect(try await seqs(after: 9, limit: 3) == [10])
        #expect(try await seqs(after: 10, limit: 3) == [])
        #expect(try await seqs(after: 0, limit: 100) == Array(1...10))
        #expect(try await seqs(after: 4, limit: 1) == [5])

        // Paging to the end visits every event once, in order.
        var cursor: Int64 = 0
        var visited: [ConversationEvent] = []
        while true {
            let page = try await store.events(id, app: fixture.app.id, afterSeq: cursor, limit: 4)
            if page.isEmpty { break }
            visited += page
            cursor = page.last!.seq
        }
        #expect(visited == (try await fixture.allEvents(id)))
        #expect(visited.compactMap(\.message?.text) == (1...9).map { "message \($0)" })
    }

    static func eventsBeforeSeq_returnNewestWindowBeforeCursorOldestFirst(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await conversation(withMessages: 9, fixture)  // seqs 1...10
        func seqs(before: Int64, limit: Int) async throws -> [Int64] {
            try await store.events(id, app: fixture.app.id, beforeSeq: before, limit: limit).map(\.seq)
        }
        #expect(try await seqs(before: 11, limit: 3) == [8, 9, 10])
        #expect(try await seqs(before: .max, limit: 3) == [8, 9, 10])
        #expect(try await seqs(before: 8, limit: 3) == [5, 6, 7])
        #expect(try await seqs(before: 5, limit: 3) == [2, 3, 4])
        #expect(try await seqs(before: 2, limit: 3) == [1])
        #expect(try await seqs(before: 1, limit: 3) == [])
        #expect(try await seqs(before: 11, limit: 100) == Array(1...10))
        #expect(try await seqs(before: 6, limit: 1) == [5])

        // Paging back from the newest visits every event once; each page reads oldest first.
        var cursor: Int64 = .max
        var pages: [[ConversationEvent]] = []
        while true {
            let page = try await store.events(id, app: fixture.app.id, beforeSeq: cursor, limit: 4)
            if page.isEmpty { break }
            pages.append(page)
            cursor = page.first!.seq
        }
        #expect(pages.map { $0.map(\.seq) } == [[7, 8, 9, 10], [3, 4, 5, 6], [1, 2]])
        #expect(pages.reversed().flatMap { $0 } == (try await fixture.allEvents(id)))
    }
}

// MARK: - Read markers

extension StoreConformance {
    static func markRead_storesReadEventAndReadSeq(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await conversation(withMessages: 2, fixture)  // seqs 1...3
        try await fixture.assign(id)                              // seqs 4, 5
        #expect(try await store.readSeq(id, participant: fixture.agentParticipant) == 0, "never read is 0")

        let read = try await fixture.markRead(id, by: fixture.agentParticipant, seq: 3)
        let event = try #require(read.events.only)
        #expect(event.seq == 6)
        #expect(event.author == fixture.agentParticipant)
        #expect(event.body == .read(ReadMarker(readSeq: 3)))
        #expect(read.conversation.lastSeq == 6)
        #expect(try await fixture.allEvents(id).last == event)
        #expect(try await fixture.stored(id).lastSeq == 6)
        #expect(try await store.readSeq(id, participant: fixture.agentParticipant) == 3)
        // Read positions are per participant (a name does not matter, the id does).
        #expect(try await store.readSeq(id, participant: .agent(fixture.agent.id, name: nil)) == 3)
        #expect(try await store.readSeq(id, participant: fixture.visitorParticipant) == 0)
        #expect(try await store.readSeq(id, participant: fixture.otherAgentParticipant) == 0)

        let visitorRead = try await fixture.markRead(id, by: fixture.visitorParticipant, seq: 6)
        #expect(visitorRead.events.map(\.brief) == ["7 visitor read 6"])
        #expect(try await store.readSeq(id, participant: fixture.visitorParticipant) == 6)
        #expect(try await store.readSeq(id, participant: fixture.agentParticipant) == 3)

        let further = try await fixture.markRead(id, by: fixture.agentParticipant, seq: 7)
        #expect(further.events.map(\.brief) == ["8 agent read 7"])
        #expect(try await store.readSeq(id, participant: fixture.agentParticipant) == 7)
    }

    static func markRead_atOrBelowPreviousRead_isNoOp(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await conversation(withMessages: 4, fixture)  // seqs 1...5
        try await fixture.markRead(id, by: fixture.visitorParticipant, seq: 4)  // seq 6
        let before = try await fixture.stored(id)

        for seq: Int64 in [4, 3, 1] {
            let again = try await fixture.markRead(id, by: fixture.visitorParticipant, seq: seq)
            #expect(again.events.isEmpty, "reading up to \(seq) after 4 stores nothing")
            #expect(again.conversation.lastSeq == 6)
        }
        #expect(try await fixture.stored(id) == before)
        #expect(try await fixture.allEvents(id).count == 6)
        #expect(try await store.readSeq(id, participant: fixture.visitorParticipant) == 4, "the read position never moves back")
    }

    static func markRead_seqOutOfRange_throwsInvalidState(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await conversation(withMessages: 2, fixture)  // seqs 1...3
        for seq: Int64 in [0, -1, 4, 1_000] {
            await expectStoreError(.invalidState, "reading up to \(seq) of 3") {
                try await fixture.markRead(id, by: fixture.visitorParticipant, seq: seq)
            }
        }
        #expect(try await fixture.stored(id).lastSeq == 3)
        #expect(try await store.readSeq(id, participant: fixture.visitorParticipant) == 0)
    }
}
