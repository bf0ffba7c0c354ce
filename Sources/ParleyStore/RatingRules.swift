import ParleyCore

/// What both stores check before storing a rating, in the rating's transaction.
public enum RatingRules {
    /// Refuses another visitor's conversation (as not found, so nothing leaks), one that has not
    /// ended, and one no agent handled (a chat cancelled while waiting has nobody to rate).
    public static func check(_ rating: NewRating, on conversation: Conversation) throws(StoreError) {
        guard conversation.visitorID == rating.visitorID else { throw .notFound("conversation not found") }
        guard conversation.state == .ended else { throw .invalidState("a conversation can be rated once it has ended") }
        guard conversation.agentID != nil else { throw .invalidState("nobody answered this conversation, so there is nothing to rate") }
        guard (1...5).contains(rating.score) else { throw .invalidInput("score: 1 to 5") }
    }
}
