import Foundation
import ParleyCore
import ParleyStore

extension ConversationService {
    /// The visitor rates their conversation once it ended (again: the new rating replaces the old).
    /// - Throws: 400 for a score outside 1…5 or a comment too long, 404 for another's conversation,
    ///   409 when it has not ended or nobody answered it.
    func rate(_ id: ConversationID, _ request: RatingRequest, by visitor: VisitorCaller) async throws -> Rating {
        guard (1...5).contains(request.score) else { throw APIError.badRequest("score: a whole number from 1 to 5") }
        let comment = request.comment?.trimmingCharacters(in: .whitespacesAndNewlines)
        if let comment, comment.count > Limits.maxRatingCommentLength {
            throw APIError.badRequest("comment: at most \(Limits.maxRatingCommentLength) characters")
        }
        var masked: String?
        if let comment, !comment.isEmpty { masked = try await masking.mask(comment, app: visitor.appID, field: "comment") }
        // The rating's webhook rows are written with it (``CommitEffects``), then the worker is woken.
        let rating = try await store.rate(NewRating(
            conversationID: id, appID: visitor.appID, visitorID: visitor.visitorID, score: request.score, comment: masked, at: clock.now()),
            effects: committer.effects)
        committer.bell.ring()
        try await announceAnswers(id, app: visitor.appID)
        return rating
    }

    /// A conversation's rating, for its visitor and the app's agents; nil while it has none (a
    /// normal state, answered 204).
    /// - Throws: 404 when the caller may not see the conversation.
    func rating(_ id: ConversationID, caller: Caller) async throws -> Rating? {
        let conversation = try await visible(id, to: caller)
        return try await store.rating(id, app: conversation.appID)
    }
}

extension AdminService {
    /// An app's ratings: overall, per agent and per queue, best average first.
    func ratingSummary(app: AppID) async throws -> RatingSummary {
        let scores = try await store.ratingScores(app: app)
        let agentNames = Dictionary(uniqueKeysWithValues: try await store.agents(app: app).map { ($0.id, $0.name) })
        let queueNames = Dictionary(uniqueKeysWithValues: try await store.queues(app: app).map { ($0.id, $0.name) })
        let byAgent = Dictionary(grouping: scores.compactMap { score in score.agentID.map { ($0, score.score) } }, by: \.0)
            .map { agent, pairs in RatingSummary.Average(id: agent.rawValue, name: agentNames[agent], scores: pairs.map(\.1)) }
        let byQueue = Dictionary(grouping: scores, by: \.queueID)
            .map { queue, rows in RatingSummary.Average(id: queue.rawValue, name: queueNames[queue], scores: rows.map(\.score)) }
        let best: (RatingSummary.Average, RatingSummary.Average) -> Bool = {
            ($0.average ?? 0, $0.count, $1.id ?? "") > ($1.average ?? 0, $1.count, $0.id ?? "")
        }
        return RatingSummary(overall: .init(id: nil, name: nil, scores: scores.map(\.score)),
                             agents: byAgent.sorted(by: best), queues: byQueue.sorted(by: best))
    }
}
