import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Triage and the inbox's facts

extension StoreConformance {
    static func triage_updatesFieldsGiven_refusesOtherApps_andTooManyTags(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        #expect(try await store.triage([id], app: fixture.app.id).isEmpty, "never triaged")
        let at = fixture.clock.next()
        let first = try await store.updateTriage(id, app: fixture.app.id, TriageUpdate(tags: ["vip", "billing", "vip"], priority: .high),
                                                 by: fixture.agentParticipant, at: at)
        #expect(first == Triage(conversationID: id, tags: ["billing", "vip"], priority: .high, snoozedUntil: nil,
                                updatedBy: fixture.agentParticipant, updatedAt: Timestamp.date(millis: Timestamp.millis(at))))
        let until = fixture.clock.now().addingTimeInterval(3_600)
        let snoozed = try await store.updateTriage(id, app: fixture.app.id, TriageUpdate(snoozedUntil: .some(until)), by: fixture.otherAgentParticipant,
                                                   at: fixture.clock.next())
        #expect(snoozed.tags == ["billing", "vip"] && snoozed.priority == .high && snoozed.snoozedUntil == Timestamp.date(millis: Timestamp.millis(until)))
        let woken = try await store.updateTriage(id, app: fixture.app.id, TriageUpdate(snoozedUntil: .some(nil)), by: fixture.agentParticipant,
                                                 at: fixture.clock.next())
        #expect(woken.snoozedUntil == nil && woken.tags == ["billing", "vip"])
        #expect(try await store.triage([id], app: fixture.app.id) == [woken])
        #expect(try await store.triage([id], app: fixture.otherApp.id).isEmpty)
        await expectStoreError(.notFound, "through another app") {
            try await store.updateTriage(id, app: fixture.otherApp.id, TriageUpdate(priority: .low), by: fixture.agentParticipant, at: fixture.clock.next())
        }
        await expectStoreError(.invalidInput, "eleven tags") {
            try await store.updateTriage(id, app: fixture.app.id, TriageUpdate(tags: (1...11).map { "t\($0)" }), by: fixture.agentParticipant,
                                         at: fixture.clock.next())
        }
        #expect(try await store.triage([id], app: fixture.app.id) == [woken], "a refusal changes nothing")
    }

    static func openConversations_carryTriageUnreadAndWaitingSince(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let ended = try await fixture.open().conversation.id
        try await fixture.assign(id)
        let firstUnanswered = try await fixture.post(id, by: fixture.visitorParticipant, text: "one").events.last!
        let second = try await fixture.post(id, by: fixture.visitorParticipant, text: "two").events.last!
        _ = try await fixture.markRead(id, by: fixture.agentParticipant, seq: firstUnanswered.seq)
        try await fixture.assign(ended, to: fixture.otherAgentParticipant)
        try await fixture.end(ended, by: fixture.otherAgentParticipant)
        _ = try await store.updateTriage(id, app: fixture.app.id, TriageUpdate(tags: ["vip"]), by: fixture.agentParticipant, at: fixture.clock.next())

        let open = try await store.openConversations(app: fixture.app.id, reader: fixture.agent.id)
        #expect(open.map(\.conversation.id) == [id], "ended ones are not open")
        let row = try #require(open.first)
        #expect(row.conversation == (try await fixture.stored(id)))
        #expect(row.triage.tags == ["vip"])
        #expect(row.lastVisitorMessageSeq == second.seq)
        #expect(row.readerReadSeq == firstUnanswered.seq)
        #expect(row.waitingSince == firstUnanswered.createdAt)
        #expect(row.lastVisitorMessageAt == second.createdAt)
        let theirs = try #require(try await store.openConversations(app: fixture.app.id, reader: fixture.otherAgent.id).first)
        #expect(theirs.readerReadSeq == 0, "read markers are the reader's own")
        // An agent's answer ends the wait.
        try await fixture.post(id, by: fixture.agentParticipant, text: "here")
        #expect(try await store.openConversations(app: fixture.app.id, reader: fixture.agent.id).first?.waitingSince == nil)
        #expect(try await store.openConversations(app: fixture.otherApp.id, reader: fixture.agent.id).isEmpty)
    }

    static func conversations_filterByQueueTagPriority_andPageByKeyset(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let a = try await fixture.open().conversation.id
        let b = try await fixture.open(queue: fixture.secondQueue).conversation.id
        let c = try await fixture.open().conversation.id
        _ = try await store.updateTriage(a, app: fixture.app.id, TriageUpdate(tags: ["vip"], priority: .urgent), by: fixture.agentParticipant,
                                         at: fixture.clock.next())
        _ = try await store.updateTriage(b, app: fixture.app.id, TriageUpdate(tags: ["vip", "billing"]), by: fixture.agentParticipant,
                                         at: fixture.clock.next())
        func list(_ query: ConversationQuery) async throws -> [ConversationID] { try await store.conversations(query).map(\.id) }
        let app = fixture.app.id
        #expect(try await list(.init(appID: app, queueID: fixture.secondQueue.id)) == [b])
        #expect(try await list(.init(appID: app, tag: "vip")) == [b, a])
        #expect(try await list(.init(appID: app, tag: "vi")).isEmpty, "whole tags only")
        #expect(try await list(.init(appID: app, priority: .urgent)) == [a])
        #expect(try await list(.init(appID: app, priority: .normal)) == [c, b], "never triaged counts as normal")
        let first = try await store.conversations(.init(appID: app, limit: 2))
        #expect(first.map(\.id) == [c, b])
        let last = try #require(first.last)
        #expect(try await list(.init(appID: app, limit: 2, after: .init(updatedAt: last.updatedAt, id: last.id))) == [a])
    }
}
