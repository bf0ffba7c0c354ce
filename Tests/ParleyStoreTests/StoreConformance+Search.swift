import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Search

extension StoreConformance {
    static func searchMessages_foldedPrefixesOfEveryTerm_onlyInTheApp(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let first = try await fixture.open().conversation.id
        let second = try await fixture.open(by: fixture.otherVisitor).conversation.id
        try await fixture.post(first, by: fixture.visitorParticipant, text: "I want a REFUND for order 4471, please")
        try await fixture.post(first, by: fixture.visitorParticipant, text: "Also the café crème was cold")
        try await fixture.post(second, by: fixture.otherVisitorParticipant, text: "Refunds take how long?")
        try await fixture.post(second, by: fixture.otherVisitorParticipant, text: "Nothing to see here")
        // The same words in another app are never found from this one.
        let outsider = try await store.upsertVisitor(app: fixture.otherApp.id, deviceID: "device-eve", profile: VisitorProfile(name: "Eve"),
                                                     at: fixture.clock.next())
        let foreign = try await store.commit(.open(.init(
            id: .generate(), appID: fixture.otherApp.id, queueID: fixture.otherAppQueue.id, visitorID: outsider.id, visitorName: "Eve",
            subject: nil, attributes: [:], queueRank: 1, at: fixture.clock.next()))).conversation.id
        try await fixture.post(foreign, by: .visitor(outsider.id, name: "Eve"), text: "refund refund refund", app: fixture.otherApp.id)

        func rows(_ text: String, states: Set<ConversationState>? = nil, limit: Int = 20, page: MessageSearchPage = .newest(before: nil)) async throws -> [MessageSearchRow] {
            try await store.searchMessages(SearchQuery(appID: fixture.app.id, terms: SearchText.queryTerms(text), text: text,
                                                       states: states, limit: limit), page: page)
        }
        func search(_ text: String, states: Set<ConversationState>? = nil, limit: Int = 20, page: MessageSearchPage = .newest(before: nil)) async throws -> [String] {
            try await rows(text, states: states, limit: limit, page: page)
                .map { "\($0.conversation.id == first ? "first" : "second") \($0.event.seq) \($0.event.message?.text ?? "")" }
        }
        #expect(try await search("refu") == [
            "second 2 Refunds take how long?", "first 2 I want a REFUND for order 4471, please",
        ], "newest first")
        #expect(try await search("CAFE CREME") == ["first 3 Also the café crème was cold"])
        #expect(try await search("refund 4471") == ["first 2 I want a REFUND for order 4471, please"])
        #expect(try await search("refund cold").isEmpty, "every term must match the same message")
        #expect(try await search("4").isEmpty, "a single character matches only itself")
        #expect(try await search("eve").isEmpty)
        // Paging walks the same order without repeats, in either order.
        let newest = try await rows("refu", limit: 1)
        let older = try await rows("refu", limit: 1, page: .newest(before: try #require(newest.first).position))
        #expect((newest + older).map(\.event.seq) == [2, 2] && Set((newest + older).map(\.conversation.id)).count == 2)
        #expect(try await rows("refu", page: .newest(before: try #require(older.first).position)).isEmpty)
        let ranked = try await search("refu", page: .relevance(offset: 0))
        #expect(Set(ranked) == Set(try await search("refu")))
        let pages = try await search("refu", limit: 1, page: .relevance(offset: 0)) + search("refu", limit: 1, page: .relevance(offset: 1))
            + search("refu", limit: 1, page: .relevance(offset: 2))
        #expect(pages == ranked)
        // Filters are the conversation's.
        try await fixture.assign(second)
        try await fixture.end(second, by: fixture.agentParticipant)
        #expect(try await search("refu", states: [.ended]) == ["second 2 Refunds take how long?"])
        #expect(try await search("refu", states: [.queued]) == ["first 2 I want a REFUND for order 4471, please"])
        // The row carries the conversation and its visitor.
        let row = try #require(try await rows("cold").first)
        #expect(row.conversation == (try await fixture.stored(first)))
        #expect(row.visitor == SearchVisitor(id: fixture.visitor.id, name: "Vera", email: nil, userID: nil))
    }

    static func searchMessages_filtersByQueueAgentDateAndRating(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let early = try await fixture.open().conversation
        let late = try await fixture.open(queue: fixture.secondQueue).conversation
        try await fixture.post(early.id, by: fixture.visitorParticipant, text: "invoice missing")
        try await fixture.post(late.id, by: fixture.visitorParticipant, text: "invoice wrong")
        try await fixture.assign(early.id)
        try await fixture.end(early.id, by: fixture.agentParticipant)
        _ = try await store.rate(NewRating(conversationID: early.id, appID: fixture.app.id, visitorID: fixture.visitor.id, score: 4,
                                           comment: nil, at: fixture.clock.next()))
        func search(queue: QueueID? = nil, agent: AgentID? = nil, from: Date? = nil, before: Date? = nil, rating: Int? = nil) async throws -> [ConversationID] {
            try await store.searchMessages(SearchQuery(appID: fixture.app.id, terms: ["invoice"], text: "invoice", queueID: queue, agentID: agent,
                                                       createdFrom: from, createdBefore: before, rating: rating), page: .newest(before: nil)).map(\.conversation.id)
        }
        #expect(try await search(queue: fixture.secondQueue.id) == [late.id])
        #expect(try await search(agent: fixture.agent.id) == [early.id])
        #expect(try await search(from: late.createdAt) == [late.id])
        #expect(try await search(before: late.createdAt) == [early.id])
        #expect(try await search(rating: 4) == [early.id])
        #expect(try await search(rating: 5).isEmpty)
    }

    static func searchConversations_visitorFieldsIdSubjectAttributes_newestFirstPaged(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let visitor = try await store.upsertVisitor(app: fixture.app.id, deviceID: "device-search",
                                                    profile: VisitorProfile(name: "Grace Hopper", email: "grace@navy.test", attributes: ["tier": "Gold_50%"]),
                                                    at: fixture.clock.next())
        let older = try await fixture.open(by: visitor, subject: "Compiler question").conversation.id
        let newer = try await fixture.open(by: visitor, subject: nil).conversation.id
        let unrelated = try await fixture.open().conversation.id
        func search(_ text: String, limit: Int = 20, after: ConversationSearchPosition? = nil) async throws -> [ConversationSearchRow] {
            try await store.searchConversations(SearchQuery(appID: fixture.app.id, terms: SearchText.queryTerms(text), text: text, limit: limit), after: after)
        }
        #expect(try await search("HOPPER").map(\.conversation.id) == [newer, older])
        #expect(try await search("navy.test").map(\.conversation.id) == [newer, older])
        #expect(try await search("compiler").map(\.conversation.id) == [older])
        #expect(try await search(unrelated.rawValue.lowercased()).map(\.conversation.id) == [unrelated])
        #expect(try await search("gold_50%").map(\.conversation.id) == [newer, older], "LIKE's wildcards are matched literally")
        #expect(try await search("gold_5%").isEmpty, "an underscore is not a wildcard")
        #expect(try await search("pro").count == 3, "conversation attributes (plan: pro)")
        let first = try #require(try await search("grace", limit: 1).first)
        #expect(first.visitor.email == "grace@navy.test" && first.visitorAttributes == ["tier": "Gold_50%"])
        let second = try await search("grace", limit: 1, after: .init(updatedAt: first.conversation.updatedAt, id: first.conversation.id))
        #expect(second.map(\.conversation.id) == [older])
    }
}
