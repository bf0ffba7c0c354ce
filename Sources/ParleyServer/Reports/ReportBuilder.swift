import Foundation
import ParleyCore
import ParleyStore

/// The figures of a report, from the conversations of its range: pure, so the same history gives
/// the same figures on either store, and tests check them exactly.
struct ReportBuilder: Sendable {
    var range: ReportRange
    var queueNames: [QueueID: String]
    var agentNames: [AgentID: String]

    func report(_ conversations: [ReportConversation]) -> TeamReport {
        var perDay = Array(repeating: [ReportConversation](), count: range.days.count)
        for conversation in conversations {
            if let index = range.dayIndex(of: conversation.createdAt) { perDay[index].append(conversation) }
        }
        let days = zip(range.days, perDay).map { day, rows in ReportDay(date: day.date, figures: Self.figures(rows)) }

        let queues = Dictionary(grouping: conversations, by: \.queueID).map { queue, rows in
            ReportGroup(id: queue.rawValue, name: queueNames[queue], figures: Self.figures(rows))
        }
        // An agent's conversations are those they handled last; their first responses are those
        // they gave, whoever handled the conversation after them; their ratings name them.
        let handled = Dictionary(grouping: conversations.filter { $0.agentID != nil }, by: { $0.agentID! })
        let answered = Dictionary(grouping: conversations.filter { $0.firstResponder != nil }, by: { $0.firstResponder! })
        let rated = Dictionary(grouping: conversations.compactMap { row in row.rating?.agentID.map { ($0, row.rating!.score) } }, by: \.0)
        let agents = Set(handled.keys).union(answered.keys).union(rated.keys).map { agent in
            ReportGroup(id: agent.rawValue, name: agentNames[agent], figures: Self.figures(
                handled: handled[agent] ?? [], answered: answered[agent] ?? [], scores: (rated[agent] ?? []).map(\.1)))
        }
        let busiest: (ReportGroup, ReportGroup) -> Bool = { ($0.figures.conversations, $1.id) > ($1.figures.conversations, $0.id) }
        return TeamReport(from: range.days[0].date, to: range.days[range.days.count - 1].date, timeZone: range.timeZoneName,
                          totals: Self.figures(conversations), days: days, queues: queues.sorted(by: busiest), agents: agents.sorted(by: busiest))
    }

    /// The figures of a set of conversations, each counted for everything it holds.
    static func figures(_ rows: [ReportConversation]) -> ReportFigures {
        figures(handled: rows, answered: rows.filter { $0.firstResponseAt != nil }, scores: rows.compactMap { $0.rating?.score })
    }

    /// `handled` gives the counts and resolution times, `answered` the first response times.
    static func figures(handled: [ReportConversation], answered: [ReportConversation], scores: [Int]) -> ReportFigures {
        let ended = handled.filter { $0.endedAt != nil }
        return ReportFigures(
            conversations: handled.count, answered: answered.count, ended: ended.count,
            firstResponse: DurationFigures(milliseconds: answered.compactMap { row in row.firstResponseAt.map { milliseconds(from: row.createdAt, to: $0) } }),
            resolution: DurationFigures(milliseconds: ended.compactMap { row in row.endedAt.map { milliseconds(from: row.createdAt, to: $0) } }),
            rating: RatingSummary.Average(id: nil, name: nil, scores: scores))
    }

    /// Stored times are whole milliseconds, so this is exact.
    static func milliseconds(from start: Date, to end: Date) -> Int64 {
        max(0, Timestamp.millis(end) - Timestamp.millis(start))
    }
}
