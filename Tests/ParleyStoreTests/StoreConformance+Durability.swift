import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Group commit and ordering

extension StoreConformance {
    static func append_concurrentSends_seqsAreGapFreeAndUnique(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let sends = 200

        let sent = try await withThrowingTaskGroup(of: (index: Int, commit: ConversationCommit).self) { group in
            for index in 0..<sends {
                group.addTask {
                    (index, try await fixture.post(id, by: fixture.visitorParticipant, text: "message \(index)", clientID: "c\(index)"))
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let commits = sent.map(\.commit)

        let returned = commits.flatMap(\.events)
        #expect(commits.allSatisfy { $0.events.count == 1 && !$0.isDuplicate })
        #expect(sent.allSatisfy { $0.commit.events.first?.message == MessageBody(clientMessageID: "c\($0.index)", text: "message \($0.index)") },
                "every sender gets back its own message")
        #expect(returned.map(\.seq).sorted() == Array(2...Int64(sends + 1)), "seqs 2…201, no gap, no duplicate")
        #expect(commits.allSatisfy { $0.conversation.lastSeq == $0.events.last?.seq }, "each commit reports its own last seq")

        let stored = try await fixture.allEvents(id)
        #expect(stored.map(\.seq) == Array(1...Int64(sends + 1)))
        let storedBySeq = Dictionary(uniqueKeysWithValues: stored.map { ($0.seq, $0) })
        for event in returned {
            #expect(storedBySeq[event.seq] == event, "the event returned for seq \(event.seq) is the one stored there")
        }
        #expect(Set(stored.compactMap(\.message?.clientMessageID)) == Set((0..<sends).map { "c\($0)" }))
        #expect(try await fixture.stored(id).lastSeq == Int64(sends + 1))
    }

    static func append_concurrentSendsToTwentyConversations_eachConversationGapFree(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        var ids: [ConversationID] = []
        for _ in 0..<20 { ids.append(try await fixture.open().conversation.id) }
        let perConversation = 15
        let conversations = ids

        let commits = try await withThrowingTaskGroup(of: ConversationCommit.self) { group in
            // Interleave: round r sends message r to every conversation.
            for round in 0..<perConversation {
                for id in conversations {
                    group.addTask {
                        let commit = try await fixture.post(id, by: fixture.visitorParticipant, text: "r\(round)", clientID: "r\(round)")
                        #expect(commit.conversation.id == id && commit.events.map(\.conversationID) == [id]
                                 && commit.events.first?.message?.clientMessageID == "r\(round)",
                                 "every sender gets back its own message")
                        return commit
                    }
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }

        #expect(commits.count == 20 * perConversation)
        let returnedByConversation = Dictionary(grouping: commits.flatMap(\.events), by: \.conversationID)
        for id in ids {
            let returned = try #require(returnedByConversation[id])
            #expect(returned.map(\.seq).sorted() == Array(2...Int64(perConversation + 1)), "conversation \(id)")
            let stored = try await fixture.allEvents(id)
            #expect(stored.map(\.seq) == Array(1...Int64(perConversation + 1)), "conversation \(id)")
            #expect(Set(stored.dropFirst()) == Set(returned), "conversation \(id) stored exactly what was returned")
            #expect(try await fixture.stored(id).lastSeq == Int64(perConversation + 1))
        }
    }

    static func groupCommit_failingChangesAmongConcurrentOnes_rollBackAlone(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        try await fixture.assign(id)  // seqs 2, 3

        // Good sends from the visitor, interleaved with sends the lifecycle rejects (an agent who is
        // not assigned) and with idempotency conflicts: each rejection must undo only its own change.
        try await fixture.post(id, by: fixture.visitorParticipant, text: "taken", clientID: "taken")  // seq 4
        enum Outcome: Sendable { case stored(ConversationEvent), invalidState, conflict, other(String) }
        let outcomes = await withTaskGroup(of: Outcome.self) { group in
            for index in 0..<150 {
                group.addTask {
                    do {
                        switch index % 3 {
                        case 0:
                            return .stored(try #require(await fixture.post(id, by: fixture.visitorParticipant, text: "ok \(index)", clientID: "ok\(index)").events.only))
                        case 1:
                            _ = try await fixture.post(id, by: fixture.otherAgentParticipant, text: "nope", clientID: "bad\(index)")
                        default:
                            _ = try await fixture.post(id, by: fixture.visitorParticipant, text: "other \(index)", clientID: "taken")
                        }
                        return .other("succeeded")
                    } catch let error as StoreError where error.isInvalidState {
                        return .invalidState
                    } catch let error as StoreError where error.isIdempotencyConflict {
                        return .conflict
                    } catch {
                        return .other("\(error)")
                    }
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }

        var stored: [ConversationEvent] = []
        var invalid = 0, conflicts = 0
        for outcome in outcomes {
            switch outcome {
            case .stored(let event): stored.append(event)
            case .invalidState: invalid += 1
            case .conflict: conflicts += 1
            case .other(let what): Issue.record("unexpected outcome: \(what)")
            }
        }
        #expect(stored.count == 50)
        #expect(invalid == 50)
        #expect(conflicts == 50)
        #expect(stored.map(\.seq).sorted() == Array(5...54))
        let all = try await fixture.allEvents(id)
        #expect(all.map(\.seq) == Array(1...54))
        #expect(Array(all.suffix(50)).sorted { $0.seq < $1.seq } == stored.sorted { $0.seq < $1.seq })
        #expect(all.allSatisfy { $0.author.id != fixture.otherAgent.id.rawValue }, "no rejected change left a trace")
        #expect(try await fixture.stored(id).lastSeq == 54)
    }
}

// MARK: - Durability

extension StoreConformance {
    /// Fills `store`, closes it, opens the same database again with `reopen` and checks that
    /// everything is there, then keeps writing to the reopened store.
    static func reopen_keepsEveryEventAndEpoch(
        _ store: any ParleyStore, reopen: @Sendable () async throws -> any ParleyStore
    ) async throws {
        let fixture = try await Fixture.make(store)
        let epoch = try await store.epoch()
        #expect(!epoch.isEmpty)
        #expect(try await store.epoch() == epoch, "the epoch is fixed")

        let first = try await fixture.open().conversation.id
        try await fixture.assign(first)
        try await fixture.post(first, by: fixture.agentParticipant, text: "hello", clientID: "a1")
        try await fixture.markRead(first, by: fixture.visitorParticipant, seq: 4)
        let second = try await fixture.open(by: fixture.otherVisitor, rank: 9).conversation.id
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<40 {
                group.addTask { try await fixture.post(second, by: fixture.otherVisitorParticipant, text: "\(index)", clientID: "c\(index)") }
            }
            try await group.waitForAll()
        }

        let eventsBefore = [first: try await fixture.allEvents(first), second: try await fixture.allEvents(second)]
        let conversationsBefore = try await store.conversations(ConversationQuery(appID: fixture.app.id))
        let activeBefore = try await store.activeConversations()
        try await store.close()

        let reopened = try await reopen()
        do {
            #expect(try await reopened.epoch() == epoch)
            for id in [first, second] {
                let events = try await reopened.events(id, app: fixture.app.id, afterSeq: 0, limit: 1_000)
                #expect(events == eventsBefore[id], "every event of \(id) survived")
            }
            #expect(try await reopened.events(second, app: fixture.app.id, afterSeq: 0, limit: 1_000).map(\.seq) == Array(1...41))
            #expect(try await reopened.conversations(ConversationQuery(appID: fixture.app.id)) == conversationsBefore)
            #expect(Set(try await reopened.activeConversations()) == Set(activeBefore))
            #expect(try await reopened.readSeq(first, participant: fixture.visitorParticipant) == 4)
            #expect(try await reopened.app(fixture.app.id)?.secretKey == "sk_acme")
            #expect(try await reopened.agent(fixture.agent.id)?.agent == fixture.agent)
            #expect(try await reopened.visitor(fixture.visitor.id, app: fixture.app.id) == fixture.visitor)

            // Numbering and idempotency carry on where they stopped.
            let after = Fixture(store: reopened, clock: fixture.clock, app: fixture.app, otherApp: fixture.otherApp,
                                queue: fixture.queue, secondQueue: fixture.secondQueue, otherAppQueue: fixture.otherAppQueue,
                                agent: fixture.agent, otherAgent: fixture.otherAgent, visitor: fixture.visitor,
                                otherVisitor: fixture.otherVisitor)
            let next = try await after.post(second, by: fixture.otherVisitorParticipant, text: "after reopen", clientID: "after")
            #expect(next.events.map(\.seq) == [42])
            let resent = try await after.post(second, by: fixture.otherVisitorParticipant, text: "7", clientID: "c7")
            #expect(resent.isDuplicate == true)
        } catch {
            try? await reopened.close()
            throw error
        }
        try await reopened.close()
    }

    static func epoch_freshDatabase_differs(_ store: any ParleyStore, fresh: any ParleyStore) async throws {
        let epoch = try await store.epoch()
        let freshEpoch = try await fresh.epoch()
        #expect(!epoch.isEmpty)
        #expect(!freshEpoch.isEmpty)
        #expect(epoch != freshEpoch)
    }

    /// `close()` finishes the writes already handed to the store ("Finishes pending writes").
    ///
    /// Regression (found by this suite, fixed in fce13be): the SQLite store's barrier only waited for
    /// the batch the group committer was writing; units still gathering in the committer were written
    /// after `pool.close()` and failed with a raw GRDB `DatabaseError` (SQLite error 21).
    static func close_withCommitsPending_finishesThemFirst(
        _ store: any ParleyStore, reopen: @Sendable () async throws -> any ParleyStore
    ) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let sends = 3_000  // enough that some are still gathering while the first batches commit
        let started = Counter()

        // Each send reports whether it was stored, or the error it got.
        let outcomes = try await withThrowingTaskGroup(of: String?.self) { group in
            for index in 0..<sends {
                group.addTask {
                    started.increment()
                    do {
                        _ = try await fixture.post(id, by: fixture.visitorParticipant, text: "\(index)", clientID: "c\(index)")
                        return nil
                    } catch let error as StoreError where error.isInvalidState && error.message == "the store is closed" {
                        return "closed"
                    } catch {
                        return "\(type(of: error)): \(error)"
                    }
                }
            }
            while started.value < sends { try await Task.sleep(for: .milliseconds(1)) }
            try await store.close()
            return try await group.reduce(into: [String?]()) { $0.append($1) }
        }
        // A send that reached the store before close() is committed; one that came after is refused
        // with "the store is closed". Nothing else: no raw database error, no work dropped.
        let stray = outcomes.compactMap { $0 }.filter { $0 != "closed" }
        let committed = outcomes.filter { $0 == nil }.count
        #expect(stray.isEmpty, "\(stray.count) of \(sends) commits failed otherwise, e.g. \(stray.first ?? "")")
        #expect(committed > 0)

        let reopened = try await reopen()
        let stored = try await reopened.events(id, app: fixture.app.id, afterSeq: 0, limit: 10_000)
        try await reopened.close()
        #expect(stored.count == committed + 1, "every commit that returned is stored, and only those")
        #expect(stored.map(\.seq) == Array(1...Int64(stored.count)), "no hole in the numbering")
    }

    /// Commits racing `close()` may fail (a store that is closing refuses new work), but every
    /// commit that returned is durable and the numbering has no hole.
    static func close_withCommitsInFlight_keepsEveryAcknowledgedCommit(
        _ store: any ParleyStore, reopen: @Sendable () async throws -> any ParleyStore
    ) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id

        let acknowledged = try await withThrowingTaskGroup(of: ConversationEvent?.self) { group in
            for index in 0..<100 {
                group.addTask {
                    try? await fixture.post(id, by: fixture.visitorParticipant, text: "\(index)", clientID: "c\(index)").events.only
                }
            }
            // Let some of them commit, then close while the rest are in flight.
            var events: [ConversationEvent?] = []
            for try await event in group {
                events.append(event)
                if events.count == 10 { try await store.close() }
            }
            return events.compactMap { $0 }
        }
        #expect(acknowledged.count >= 10)

        let reopened = try await reopen()
        let stored = try await reopened.events(id, app: fixture.app.id, afterSeq: 0, limit: 1_000)
        try await reopened.close()
        #expect(stored.map(\.seq) == Array(1...Int64(stored.count)), "no hole in the numbering")
        let storedBySeq = Dictionary(uniqueKeysWithValues: stored.map { ($0.seq, $0) })
        for event in acknowledged {
            #expect(storedBySeq[event.seq] == event, "acknowledged seq \(event.seq) survived")
        }
    }
}
