import Foundation
import Hummingbird
import ParleyCore
import ParleyCrypto
import ParleyStore

/// A desk search as its query string asks for it, checked: every refusal is a 400 naming the item.
struct SearchRequest: Sendable, Hashable {
    /// The longest query text.
    static let maxTextLength = 200
    /// The most results on a page.
    static let maxLimit = 50

    var text: String
    var scope: SearchScope
    var sort: SearchSort
    var states: Set<ConversationState>?
    var queueID: QueueID?
    var agentID: AgentID?
    var from: Date?
    var to: Date?
    var rating: Int?
    var cursor: SearchCursor?
    var limit: Int

    init(_ request: Request) throws {
        let query = request.uri.queryParameters
        let text = (query.get("q") ?? "").trimmingCharacters(in: .whitespacesAndNewlines)
        guard !text.isEmpty else { throw APIError.badRequest("q: the text to search for") }
        guard text.count <= Self.maxTextLength else { throw APIError.badRequest("q: at most \(Self.maxTextLength) characters") }
        self.text = text
        let scope = try query.get("scope").map { name in
            guard let scope = SearchScope(rawValue: name) else { throw APIError.badRequest("scope: messages or conversations") }
            return scope
        } ?? SearchScope.messages
        self.scope = scope
        let sort = try query.get("sort").map { name in
            guard let sort = SearchSort(rawValue: name) else { throw APIError.badRequest("sort: newest or relevance") }
            return sort
        } ?? SearchSort.newest
        self.sort = sort
        states = try query.get("state").map { list in
            Set(try list.split(separator: ",").map { name in
                guard let state = ConversationState(rawValue: String(name)) else { throw APIError.badRequest("state: queued, assigned or ended, comma-separated") }
                return state
            })
        }
        queueID = try request.optionalIdentifier("queue_id", kind: "a queue id")
        agentID = try request.optionalIdentifier("agent_id", kind: "an agent id")
        from = try Self.date(query.get("from"), name: "from")
        to = try Self.date(query.get("to"), name: "to")
        if let from, let to, from >= to { throw APIError.badRequest("to: must be after from") }
        rating = try request.optionalInteger("rating", range: 1...5).map(Int.init)
        cursor = try query.get("cursor").map { text in
            guard let cursor = SearchCursor(text), cursor.fits(scope: scope, sort: sort) else { throw APIError.badRequest("cursor: not one this search gave") }
            return cursor
        }
        limit = try request.integer("limit", default: 20, range: 1...Self.maxLimit)
    }

    /// The store's query for an app.
    func query(app: AppID) -> SearchQuery {
        SearchQuery(appID: app, terms: SearchText.queryTerms(text), text: text, states: states, queueID: queueID, agentID: agentID,
                    createdFrom: from, createdBefore: to, rating: rating, limit: limit + 1)
    }

    private static func date(_ text: String?, name: String) throws -> Date? {
        guard let text else { return nil }
        guard let date = Timestamp.parse(text) else { throw APIError.badRequest("\(name): an ISO 8601 timestamp") }
        return date
    }
}

/// Where the next page of a search starts, as an opaque `cursor`: an index position, an offset
/// into the ranked messages, or the last conversation's position in activity order.
enum SearchCursor: Sendable, Hashable {
    /// Newest-first messages: the next page starts before this index position.
    case newest(before: Int64)
    /// Messages by relevance: the next page starts at this offset.
    case relevance(offset: Int)
    case conversations(ConversationSearchPosition)

    /// Whether the cursor continues a search of this scope and order.
    func fits(scope: SearchScope, sort: SearchSort) -> Bool {
        switch self {
        case .newest: scope == .messages && sort == .newest
        case .relevance: scope == .messages && sort == .relevance
        case .conversations: scope == .conversations
        }
    }

    /// Reads a cursor this server wrote; nil for anything else.
    init?(_ text: String) {
        switch PageCursorText.decode(text) {
        case ("n", let fields)?:
            guard fields.count == 1, let position = Int64(fields[0]), position > 0 else { return nil }
            self = .newest(before: position)
        case ("r", let fields)?:
            guard let offset = PageCursorText.offset(fields) else { return nil }
            self = .relevance(offset: offset)
        case ("c", let fields)?:
            guard let position = PageCursorText.position(fields) else { return nil }
            self = .conversations(position)
        default:
            return nil
        }
    }

    var text: String {
        switch self {
        case .newest(let position): PageCursorText.encode("n", [String(position)])
        case .relevance(let offset): PageCursorText.encode("r", PageCursorText.offsetFields(offset))
        case .conversations(let position): PageCursorText.encode("c", PageCursorText.positionFields(position))
        }
    }
}
