import Foundation
import ParleyCore

/// Full-text search over an app's conversations (decision 0020). Messages are indexed in the same
/// transaction that stores them, as ``SearchText/indexForm(_:)`` makes them, so a message is
/// findable exactly when it is readable, and what is indexed is the stored (masked) text.
public protocol SearchStore: Sendable {
    /// Messages whose words match every term, in the page's order, from where it starts.
    func searchMessages(_ query: SearchQuery, page: MessageSearchPage) async throws -> [MessageSearchRow]
    /// Conversations whose id, subject, attributes or visitor (name, email, user id, attributes)
    /// contain the text, newest activity first, after the keyset position when one is given.
    func searchConversations(_ query: SearchQuery, after: ConversationSearchPosition?) async throws -> [ConversationSearchRow]
}

/// What to search for and among which conversations.
public struct SearchQuery: Sendable, Hashable {
    public var appID: AppID
    /// The folded terms (``SearchText/queryTerms(_:)``), for message search.
    public var terms: [String]
    /// The text as typed, trimmed, for conversation search (a substring, any case).
    public var text: String
    public var states: Set<ConversationState>?
    public var queueID: QueueID?
    public var agentID: AgentID?
    /// Conversations created at or after this instant.
    public var createdFrom: Date?
    /// Conversations created before this instant.
    public var createdBefore: Date?
    /// Conversations rated with this score.
    public var rating: Int?
    public var limit: Int

    public init(appID: AppID, terms: [String], text: String, states: Set<ConversationState>? = nil, queueID: QueueID? = nil,
                agentID: AgentID? = nil, createdFrom: Date? = nil, createdBefore: Date? = nil, rating: Int? = nil, limit: Int = 20) {
        self.appID = appID
        self.terms = terms
        self.text = text
        self.states = states
        self.queueID = queueID
        self.agentID = agentID
        self.createdFrom = createdFrom
        self.createdBefore = createdBefore
        self.rating = rating
        self.limit = limit
    }
}

/// Which page of matching messages, in which order.
public enum MessageSearchPage: Sendable, Hashable {
    /// Newest first (the order messages were indexed), before an index position when one is
    /// given. Its cost follows the page, not the number of matches: the default.
    case newest(before: Int64?)
    /// Most relevant first (SQLite's bm25, PostgreSQL's ts_rank; then newest), `offset` into that
    /// order. Every match is scored, so a very common word costs more.
    case relevance(offset: Int)
}

/// A matching message with its conversation and visitor.
public struct MessageSearchRow: Sendable, Hashable {
    public var conversation: Conversation
    public var visitor: SearchVisitor
    public var event: ConversationEvent
    /// Where the message is in the index's order (the next newest page starts before it).
    public var position: Int64
    public init(conversation: Conversation, visitor: SearchVisitor, event: ConversationEvent, position: Int64) {
        self.conversation = conversation
        self.visitor = visitor
        self.event = event
        self.position = position
    }
}

/// A matching conversation with its visitor's searchable fields.
public struct ConversationSearchRow: Sendable, Hashable {
    public var conversation: Conversation
    public var visitor: SearchVisitor
    public var visitorAttributes: [String: String]
    public init(conversation: Conversation, visitor: SearchVisitor, visitorAttributes: [String: String]) {
        self.conversation = conversation
        self.visitor = visitor
        self.visitorAttributes = visitorAttributes
    }
}

/// Where a page of conversation results ended: the last row's activity time and id.
public struct ConversationSearchPosition: Sendable, Hashable {
    public var updatedAt: Date
    public var id: ConversationID
    public init(updatedAt: Date, id: ConversationID) {
        self.updatedAt = updatedAt
        self.id = id
    }
}

extension SearchQuery {
    /// The pattern for a case-insensitive `LIKE … ESCAPE '\'` on lower-cased columns: the text
    /// lower-cased, its `%`, `_` and `\` escaped, between `%`s.
    public var likePattern: String {
        var escaped = ""
        for character in text.lowercased() {
            if character == "%" || character == "_" || character == "\\" { escaped.append("\\") }
            escaped.append(character)
        }
        return "%" + escaped + "%"
    }

    /// The message text a store indexes for an event, or nil for events that are not searched:
    /// a message's text or an attachment's caption.
    public static func indexedText(_ event: ConversationEvent) -> String? {
        guard case .message(let message) = event.body else { return nil }
        let form = SearchText.indexForm(message.text)
        return form.isEmpty ? nil : form
    }
}
