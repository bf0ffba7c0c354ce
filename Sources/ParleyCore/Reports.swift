import Foundation

/// `GET /v1/admin/apps/{app}/reports`: how the team did over a range of days, computed by the
/// server from the stored events of the conversations started in that range (docs/protocol.md
/// "Reports").
///
/// A conversation counts on the day it started, in the report's time zone. Durations are whole
/// milliseconds; percentiles take the nearest rank (the smallest value at least `p` % of the
/// values are not above), so every figure is one that was measured.
public struct TeamReport: Hashable, Sendable, Codable {
    /// The first day, `YYYY-MM-DD`.
    public var from: String
    /// The last day, included.
    public var to: String
    /// The IANA time zone the days are cut in.
    public var timeZone: String
    /// Every conversation of the range.
    public var totals: ReportFigures
    /// One entry per day of the range, oldest first, days without conversations included.
    public var days: [ReportDay]
    /// Per queue (the queue a conversation is in now, or ended in), most conversations first.
    public var queues: [ReportGroup]
    /// Per agent, most conversations first. An agent's conversations are those they handled last;
    /// their first response times are those of the conversations they answered first.
    public var agents: [ReportGroup]

    public init(from: String, to: String, timeZone: String, totals: ReportFigures, days: [ReportDay], queues: [ReportGroup], agents: [ReportGroup]) {
        self.from = from
        self.to = to
        self.timeZone = timeZone
        self.totals = totals
        self.days = days
        self.queues = queues
        self.agents = agents
    }

    enum CodingKeys: String, CodingKey { case from, to, timeZone = "time_zone", totals, days, queues, agents }
}

/// The figures of a set of conversations.
public struct ReportFigures: Hashable, Sendable, Codable {
    /// Conversations started.
    public var conversations: Int
    /// Of those, the ones an agent answered.
    public var answered: Int
    /// Of those, the ones that ended.
    public var ended: Int
    /// From the start of a conversation to the first agent message.
    public var firstResponse: DurationFigures
    /// From the start of a conversation to its end.
    public var resolution: DurationFigures
    /// The ratings these conversations received.
    public var rating: RatingSummary.Average

    public init(conversations: Int, answered: Int, ended: Int, firstResponse: DurationFigures, resolution: DurationFigures, rating: RatingSummary.Average) {
        self.conversations = conversations
        self.answered = answered
        self.ended = ended
        self.firstResponse = firstResponse
        self.resolution = resolution
        self.rating = rating
    }

    enum CodingKeys: String, CodingKey {
        case conversations, answered, ended, firstResponse = "first_response", resolution, rating
    }
}

/// Percentiles of a set of durations, in milliseconds; nil when there are none.
public struct DurationFigures: Hashable, Sendable, Codable {
    public var count: Int
    public var p50: Int64?
    public var p90: Int64?

    public init(count: Int, p50: Int64?, p90: Int64?) {
        self.count = count
        self.p50 = p50
        self.p90 = p90
    }

    /// The figures of these durations (nearest rank).
    public init(milliseconds values: [Int64]) {
        let sorted = values.sorted()
        func rank(_ percent: Int) -> Int64? {
            guard !sorted.isEmpty else { return nil }
            // ceil(p × n / 100), as integers, so 90 % of 10 values is the 9th.
            return sorted[(percent * sorted.count + 99) / 100 - 1]
        }
        self.init(count: sorted.count, p50: rank(50), p90: rank(90))
    }

    enum CodingKeys: String, CodingKey { case count, p50 = "p50_ms", p90 = "p90_ms" }
}

/// One day of a report.
public struct ReportDay: Hashable, Sendable, Codable {
    /// `YYYY-MM-DD`.
    public var date: String
    public var figures: ReportFigures

    public init(date: String, figures: ReportFigures) {
        self.date = date
        self.figures = figures
    }

    enum CodingKeys: String, CodingKey { case date, figures }
}

/// A queue's or an agent's share of a report.
public struct ReportGroup: Hashable, Sendable, Codable {
    public var id: String
    /// The queue's or agent's name; nil when it no longer exists.
    public var name: String?
    public var figures: ReportFigures

    public init(id: String, name: String?, figures: ReportFigures) {
        self.id = id
        self.name = name
        self.figures = figures
    }
}

/// `GET /v1/admin/apps/{app}/reports/ratings`: the ratings of the conversations started in a
/// range, newest first, with their comments.
public struct ReportRatingList: Hashable, Sendable, Codable {
    public var ratings: [ReportRating]
    /// Pass as `cursor` for the next page; absent on the last one.
    public var nextCursor: String?

    public init(ratings: [ReportRating], nextCursor: String?) {
        self.ratings = ratings
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey { case ratings, nextCursor = "next_cursor" }
}

/// One rating in a report.
public struct ReportRating: Hashable, Sendable, Codable {
    public var conversationID: ConversationID
    public var score: Int
    public var comment: String?
    public var agentID: AgentID?
    public var agentName: String?
    public var queueID: QueueID
    public var queueName: String?
    public var ratedAt: Date

    public init(conversationID: ConversationID, score: Int, comment: String?, agentID: AgentID?, agentName: String?, queueID: QueueID, queueName: String?,
                ratedAt: Date) {
        self.conversationID = conversationID
        self.score = score
        self.comment = comment
        self.agentID = agentID
        self.agentName = agentName
        self.queueID = queueID
        self.queueName = queueName
        self.ratedAt = ratedAt
    }

    enum CodingKeys: String, CodingKey {
        case conversationID = "conversation_id", score, comment, agentID = "agent_id", agentName = "agent_name", queueID = "queue_id"
        case queueName = "queue_name", ratedAt = "rated_at"
    }
}
