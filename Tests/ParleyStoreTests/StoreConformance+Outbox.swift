import Foundation
import ParleyCore
import ParleyStore
import Testing

/// A side-effect rule for the tests: one outbox row per stored message.
struct MessageEchoEffects: CommitEffects {
    func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry] {
        commit.events.compactMap { event in
            guard let message = event.message else { return nil }
            return OutboxEntry(
                id: "\(event.conversationID.rawValue)-\(event.seq)", kind: "test", appID: commit.conversation.appID,
                conversationID: event.conversationID, seq: event.seq, payload: #"{"text":"\#(message.text)"}"#, dueAt: event.createdAt)
        }
    }
}

extension StoreConformance {
    /// The outbox rows a commit's rules make are stored with it, in its transaction: there with the
    /// event, never without it, and not again for a resent message.
    static func outbox_rowsStoredWithTheirCommit_only(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        let effects = MessageEchoEffects()
        func post(_ text: String, clientID: String, by author: Participant? = nil) async throws -> ConversationCommit {
            try await store.commit(.postMessage(.init(
                conversationID: id, appID: fixture.app.id, author: author ?? fixture.visitorParticipant, clientMessageID: clientID,
                text: text, reopenRank: 50, at: fixture.clock.next())), effects: effects)
        }
        let first = try await post("hello", clientID: "c1")
        #expect(try await store.pendingOutbox(kind: "test", limit: 10).map(\.id) == ["\(id.rawValue)-\(first.events[0].seq)"])

        // A resend is answered from the store, with no second row; a changed resend, a refused
        // author and another app's caller store nothing.
        #expect(try await post("hello", clientID: "c1").isDuplicate)
        await expectStoreError(.idempotencyConflict) { try await post("changed", clientID: "c1") }
        await expectStoreError(.invalidState) { try await post("not assigned", clientID: "c2", by: fixture.agentParticipant) }
        await expectStoreError(.notFound) {
            try await store.commit(.postMessage(.init(
                conversationID: id, appID: fixture.otherApp.id, author: .system, clientMessageID: "c3", text: "x", reopenRank: 50,
                at: fixture.clock.next())), effects: effects)
        }
        let second = try await post("again", clientID: "c4")
        let rows = try await store.pendingOutbox(kind: "test", limit: 10)
        #expect(rows.map(\.seq) == [first.events[0].seq, second.events[0].seq])
        #expect(rows.last?.payload == #"{"text":"again"}"# && rows.last?.appID == fixture.app.id && rows.last?.conversationID == id)
        #expect(try await store.pendingOutbox(kind: "other", limit: 10).isEmpty)
        // A commit without rules leaves the outbox as it is.
        try await fixture.post(id, by: fixture.visitorParticipant, text: "no effects")
        #expect(try await store.pendingOutbox(kind: "test", limit: 10).count == 2)
    }

    /// The commit answers what routing needs to follow: where the conversation is queued, and
    /// whether it moved at all.
    static func commit_reportsRankAndMoves(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let opened = try await fixture.open(rank: 100)
        #expect(opened.moved && opened.queueRank == 100)
        let id = opened.conversation.id
        let message = try await fixture.post(id, by: fixture.visitorParticipant, text: "hi")
        #expect(!message.moved && message.queueRank == 100)
        let assigned = try await fixture.assign(id)
        #expect(assigned.moved && assigned.queueRank == nil)
        let ended = try await fixture.end(id, by: fixture.visitorParticipant)
        #expect(ended.moved && ended.conversation.state == .ended)
        let reopened = try await fixture.post(id, by: fixture.visitorParticipant, text: "back", reopenRank: 42)
        #expect(reopened.moved && reopened.queueRank == 42 && reopened.conversation.state == .queued)
        let read = try await fixture.markRead(id, by: fixture.visitorParticipant, seq: reopened.events.last!.seq)
        #expect(!read.moved && read.events.count == 1)
    }
}
