import Foundation

/// A visitor's rating of a conversation after it ended: 1 (bad) to 5 (great), with an optional
/// comment. One per conversation; rating again replaces it.
public struct Rating: Hashable, Sendable, Codable {
    public var conversationID: ConversationID
    /// 1…5.
    public var score: Int
    public var comment: String?
    /// The agent who handled the conversation when it was rated (nil when none ever did).
    public var agentID: AgentID?
    public var queueID: QueueID
    public var createdAt: Date
    public var updatedAt: Date

    public init(conversationID: ConversationID, score: Int, comment: String?, agentID: AgentID?, queueID: QueueID, createdAt: Date, updatedAt: Date) {
        self.conversationID = conversationID
        self.score = score
        self.comment = comment
        self.agentID = agentID
        self.queueID = queueID
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case conversationID = "conversation_id", score, comment, agentID = "agent_id", queueID = "queue_id"
        case createdAt = "created_at", updatedAt = "updated_at"
    }
}

/// `PUT /v1/conversations/{id}/rating`: `{"score": 5, "comment": "Quick and kind"}`.
public struct RatingRequest: Hashable, Sendable, Codable {
    public var score: Int
    public var comment: String?
    public init(score: Int, comment: String? = nil) {
        self.score = score
        self.comment = comment
    }
}

/// How an app's conversations were rated, overall, per agent and per queue (admins only).
public struct RatingSummary: Hashable, Sendable, Codable {
    /// The ratings of one agent or one queue, or of the whole app.
    public struct Average: Hashable, Sendable, Codable {
        /// The agent's or queue's id; nil for the whole app.
        public var id: String?
        /// The agent's or queue's name, when it still exists.
        public var name: String?
        public var count: Int
        /// The mean score, rounded to two decimals; nil with no ratings.
        public var average: Double?
        /// How many ratings gave each score, 1 to 5.
        public var distribution: [Int]

        public init(id: String?, name: String?, count: Int, average: Double?, distribution: [Int]) {
            self.id = id
            self.name = name
            self.count = count
            self.average = average
            self.distribution = distribution
        }

        /// The figures of a set of scores.
        public init(id: String?, name: String?, scores: [Int]) {
            var distribution = [0, 0, 0, 0, 0]
            for score in scores where (1...5).contains(score) { distribution[score - 1] += 1 }
            let average = scores.isEmpty ? nil : (Double(scores.reduce(0, +)) / Double(scores.count) * 100).rounded() / 100
            self.init(id: id, name: name, count: scores.count, average: average, distribution: distribution)
        }
    }

    public var overall: Average
    /// Agents with at least one rating, best average first.
    public var agents: [Average]
    /// Queues with at least one rating, best average first.
    public var queues: [Average]

    public init(overall: Average, agents: [Average], queues: [Average]) {
        self.overall = overall
        self.agents = agents
        self.queues = queues
    }
}

/// What the visitor answered in a conversation after it: the rating and the form submissions
/// (pre-chat, post-chat, offline). The `answers` frame carries it to the app's agents whenever
/// either changes, so the desk shows a rating or a post-chat answer as it arrives.
public struct ConversationAnswers: Hashable, Sendable, Codable {
    public var conversationID: ConversationID
    /// Nil until the visitor rates.
    public var rating: Rating?
    /// Oldest first.
    public var formSubmissions: [FormSubmission]

    public init(conversationID: ConversationID, rating: Rating?, formSubmissions: [FormSubmission]) {
        self.conversationID = conversationID
        self.rating = rating
        self.formSubmissions = formSubmissions
    }

    enum CodingKeys: String, CodingKey { case conversationID = "conversation_id", rating, formSubmissions = "form_submissions" }
}
