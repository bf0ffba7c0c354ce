import Foundation

/// What a desk search looks through (`GET /v1/desk/search?scope=`).
public enum SearchScope: String, Hashable, Sendable, Codable, CaseIterable {
    /// Message text (and attachment captions), ranked by relevance.
    case messages
    /// The conversation and its visitor: id, subject, attributes, the visitor's name, email, user
    /// id and attributes; newest activity first.
    case conversations
}

/// The order of message results (`GET /v1/desk/search?sort=`).
public enum SearchSort: String, Hashable, Sendable, Codable, CaseIterable {
    /// Newest first: the default, as fast on a million messages as on ten.
    case newest
    /// Most relevant first (how often and how densely the terms occur), then newest.
    case relevance
}

/// A page of search results (`GET /v1/desk/search`).
public struct SearchResults: Hashable, Sendable, Codable {
    public var scope: SearchScope
    /// The query's terms as the server understood them (folded, at most eight).
    public var terms: [String]
    public var hits: [SearchHit]
    /// Pass as `cursor` for the next page; absent on the last page.
    public var nextCursor: String?

    public init(scope: SearchScope, terms: [String], hits: [SearchHit], nextCursor: String?) {
        self.scope = scope
        self.terms = terms
        self.hits = hits
        self.nextCursor = nextCursor
    }

    enum CodingKeys: String, CodingKey { case scope, terms, hits, nextCursor = "next_cursor" }
}

/// One result: the conversation, who its visitor is, and where the query matched.
public struct SearchHit: Hashable, Sendable, Codable {
    public var conversation: Conversation
    public var visitor: SearchVisitor
    public var match: SearchMatch

    public init(conversation: Conversation, visitor: SearchVisitor, match: SearchMatch) {
        self.conversation = conversation
        self.visitor = visitor
        self.match = match
    }
}

/// The visitor of a hit, as a result list shows them.
public struct SearchVisitor: Hashable, Sendable, Codable {
    public var id: VisitorID
    public var name: String?
    public var email: String?
    public var userID: String?

    public init(id: VisitorID, name: String?, email: String?, userID: String?) {
        self.id = id
        self.name = name
        self.email = email
        self.userID = userID
    }

    enum CodingKeys: String, CodingKey { case id, name, email, userID = "user_id" }
}

/// Where a hit matched: a snippet of the field's text with the matching words marked.
public struct SearchMatch: Hashable, Sendable, Codable {
    /// `message`, `subject`, `conversation.id`, `attributes.KEY`, `visitor.name`,
    /// `visitor.email`, `visitor.user_id` or `visitor.attributes.KEY`.
    public var field: String
    /// The message's seq (for `message`).
    public var seq: Int64?
    /// Who wrote the message (for `message`).
    public var author: Participant?
    /// When the message was written (for `message`).
    public var createdAt: Date?
    /// The field's text, or a window of it around the first match; an ellipsis marks a cut.
    public var snippet: String
    /// The matching words in `snippet`, as UTF-16 offsets (what JavaScript strings count).
    public var highlights: [TextRange]

    public init(field: String, seq: Int64? = nil, author: Participant? = nil, createdAt: Date? = nil, snippet: String, highlights: [TextRange]) {
        self.field = field
        self.seq = seq
        self.author = author
        self.createdAt = createdAt
        self.snippet = snippet
        self.highlights = highlights
    }

    enum CodingKeys: String, CodingKey { case field, seq, author, createdAt = "created_at", snippet, highlights }
}

/// A run of a text, in UTF-16 code units.
public struct TextRange: Hashable, Sendable, Codable {
    public var start: Int
    public var length: Int

    public init(start: Int, length: Int) {
        self.start = start
        self.length = length
    }
}
