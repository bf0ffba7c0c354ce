import Foundation
import ParleyCore
import ParleyStore

/// Reports for an app's admins, computed from the stored conversations of a range.
struct ReportService: Sendable {
    /// The most ratings on one page.
    static let maxRatingsLimit = 100

    let store: any ParleyStore

    func summary(app: AppID, range: ReportRange) async throws -> TeamReport {
        let (rows, builder) = try await read(app: app, range: range)
        return builder.report(rows)
    }

    /// The ratings of the range, newest first, `limit` from `offset`.
    func ratings(app: AppID, range: ReportRange, offset: Int, limit: Int) async throws -> ReportRatingList {
        let (rows, builder) = try await read(app: app, range: range)
        let rated = rows.compactMap(\.rating).sorted { ($0.createdAt, $0.conversationID.rawValue) > ($1.createdAt, $1.conversationID.rawValue) }
        let page = rated.dropFirst(offset).prefix(limit).map { rating in
            ReportRating(conversationID: rating.conversationID, score: rating.score, comment: rating.comment, agentID: rating.agentID,
                         agentName: rating.agentID.flatMap { builder.agentNames[$0] }, queueID: rating.queueID,
                         queueName: builder.queueNames[rating.queueID], ratedAt: rating.createdAt)
        }
        let next = rated.count > offset + limit ? ReportRatingsCursor(offset: offset + limit).text : nil
        return ReportRatingList(ratings: Array(page), nextCursor: next)
    }

    func csv(app: AppID, range: ReportRange) async throws -> String {
        let (rows, builder) = try await read(app: app, range: range)
        return ReportCSV.document(rows, range: range, queueNames: builder.queueNames, agentNames: builder.agentNames)
    }

    private func read(app: AppID, range: ReportRange) async throws -> ([ReportConversation], ReportBuilder) {
        let rows = try await store.reportConversations(app: app, from: range.start, before: range.end)
        let queueNames = Dictionary(uniqueKeysWithValues: try await store.queues(app: app).map { ($0.id, $0.name) })
        let agentNames = Dictionary(uniqueKeysWithValues: try await store.agents(app: app).map { ($0.id, $0.name) })
        return (rows, ReportBuilder(range: range, queueNames: queueNames, agentNames: agentNames))
    }
}

/// Where the next page of a report's ratings starts.
struct ReportRatingsCursor: Sendable, Hashable {
    var offset: Int

    init(offset: Int) { self.offset = offset }

    init?(_ text: String) {
        guard case ("o", let fields)? = PageCursorText.decode(text), let offset = PageCursorText.offset(fields) else { return nil }
        self.offset = offset
    }

    var text: String { PageCursorText.encode("o", PageCursorText.offsetFields(offset)) }
}
