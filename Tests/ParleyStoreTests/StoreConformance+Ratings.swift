import Foundation
import ParleyCore
import ParleyStore
import Testing

extension StoreConformance {
    static func rate_endedConversation_isStoredAndReplaced_othersRefused(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let id = try await fixture.open().conversation.id
        func rating(_ score: Int, comment: String? = nil, visitor: VisitorID? = nil, app: AppID? = nil) -> NewRating {
            NewRating(conversationID: id, appID: app ?? fixture.app.id, visitorID: visitor ?? fixture.visitor.id, score: score,
                      comment: comment, at: fixture.clock.next())
        }
        await expectStoreError(.invalidState, "still queued") { try await store.rate(rating(4)) }
        try await fixture.assign(id)
        await expectStoreError(.invalidState, "still assigned") { try await store.rate(rating(4)) }
        try await fixture.end(id, by: fixture.agentParticipant)

        await expectStoreError(.notFound, "another visitor") { try await store.rate(rating(4, visitor: fixture.otherVisitor.id)) }
        await expectStoreError(.notFound, "another app") { try await store.rate(rating(4, app: fixture.otherApp.id)) }
        #expect(try await store.rating(id, app: fixture.app.id) == nil)

        let first = try await store.rate(rating(2, comment: "slow"))
        #expect(first.score == 2 && first.comment == "slow" && first.agentID == fixture.agent.id && first.queueID == fixture.queue.id)
        let second = try await store.rate(rating(5))
        #expect(second.score == 5 && second.comment == nil)
        #expect(second.createdAt == first.createdAt && second.updatedAt > first.updatedAt, "replaced, first time kept")
        #expect(try await store.rating(id, app: fixture.app.id) == second)
        #expect(try await store.rating(id, app: fixture.otherApp.id) == nil)
        let scores = try await store.ratingScores(app: fixture.app.id)
        #expect(scores.count == 1 && scores[0].score == 5 && scores[0].agentID == fixture.agent.id)
        #expect(try await store.ratingScores(app: fixture.otherApp.id).isEmpty)

        // A conversation cancelled while it waited has nobody to rate.
        let cancelled = try await fixture.open().conversation.id
        try await fixture.end(cancelled, by: fixture.visitorParticipant)
        await expectStoreError(.invalidState, "cancelled in the queue") {
            try await store.rate(NewRating(conversationID: cancelled, appID: fixture.app.id, visitorID: fixture.visitor.id, score: 3,
                                           comment: nil, at: fixture.clock.next()))
        }
    }
}
