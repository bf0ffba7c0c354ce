import Foundation
import ParleyCore
import ParleyStore

/// Desk search: the store finds, this names where each hit matched and marks the words
/// (decision 0020). An agent searches every conversation of their app, as they may open any.
struct SearchService: Sendable {
    let store: any ParleyStore

    func search(_ request: SearchRequest, by agent: AgentCaller) async throws -> SearchResults {
        let query = request.query(app: agent.appID)
        switch request.scope {
        case .messages:
            let storePage: MessageSearchPage = switch (request.sort, request.cursor) {
            case (.newest, .newest(let before)): .newest(before: before)
            case (.relevance, .relevance(let offset)): .relevance(offset: offset)
            case (.newest, _): .newest(before: nil)
            case (.relevance, _): .relevance(offset: 0)
            }
            let rows = try await store.searchMessages(query, page: storePage)
            let page = rows.prefix(request.limit)
            let hits = page.map { row in
                SearchHit(conversation: row.conversation, visitor: row.visitor, match: Self.messageMatch(row.event, terms: query.terms))
            }
            let next: String? = if rows.count > request.limit, let last = page.last {
                switch storePage {
                case .newest: SearchCursor.newest(before: last.position).text
                case .relevance(let offset): SearchCursor.relevance(offset: offset + request.limit).text
                }
            } else { nil }
            return SearchResults(scope: .messages, terms: query.terms, hits: hits, nextCursor: next)
        case .conversations:
            let after = if case .conversations(let position) = request.cursor { position } else { nil as ConversationSearchPosition? }
            let rows = try await store.searchConversations(query, after: after)
            let page = rows.prefix(request.limit)
            let hits = page.map { row in
                SearchHit(conversation: row.conversation, visitor: row.visitor, match: Self.conversationMatch(row, text: request.text))
            }
            let next = rows.count > request.limit ? page.last.map {
                SearchCursor.conversations(.init(updatedAt: $0.conversation.updatedAt, id: $0.conversation.id)).text
            } : nil
            return SearchResults(scope: .conversations, terms: query.terms, hits: hits, nextCursor: next)
        }
    }

    /// The message's snippet around its matching words.
    static func messageMatch(_ event: ConversationEvent, terms: [String]) -> SearchMatch {
        let text = event.message?.text ?? ""
        let (snippet, highlights) = SearchSnippet.make(text, terms: terms) ?? (String(text.prefix(SearchSnippet.maxLength)), [])
        return SearchMatch(field: "message", seq: event.seq, author: event.author, createdAt: event.createdAt, snippet: snippet, highlights: highlights)
    }

    /// The first field of the conversation or its visitor that holds the text, in the order an
    /// agent would look: the id, the visitor's name, email and user id, the subject, attributes.
    static func conversationMatch(_ row: ConversationSearchRow, text: String) -> SearchMatch {
        let conversation = row.conversation
        var fields: [(String, String)] = [("conversation.id", conversation.id.rawValue)]
        if let name = row.visitor.name { fields.append(("visitor.name", name)) }
        if let email = row.visitor.email { fields.append(("visitor.email", email)) }
        if let user = row.visitor.userID { fields.append(("visitor.user_id", user)) }
        if let subject = conversation.subject { fields.append(("subject", subject)) }
        for (key, value) in conversation.attributes.sorted(by: { $0.key < $1.key }) { fields.append(("attributes.\(key)", "\(key): \(value)")) }
        for (key, value) in row.visitorAttributes.sorted(by: { $0.key < $1.key }) { fields.append(("visitor.attributes.\(key)", "\(key): \(value)")) }
        for (field, value) in fields {
            if let match = Self.substringMatch(value, text: text) {
                return SearchMatch(field: field, snippet: match.snippet, highlights: match.highlights)
            }
        }
        // The store matched on text this cannot locate (an escape in stored JSON): show the id.
        return SearchMatch(field: "conversation.id", snippet: conversation.id.rawValue, highlights: [])
    }

    /// The value with the first case-insensitive occurrence of `text` marked, cut around it.
    static func substringMatch(_ value: String, text: String) -> (snippet: String, highlights: [TextRange])? {
        guard let range = value.range(of: text, options: [.caseInsensitive]) else { return nil }
        let start = value.index(range.lowerBound, offsetBy: -SearchSnippet.leadingContext, limitedBy: value.startIndex) ?? value.startIndex
        let end = value.index(start, offsetBy: SearchSnippet.maxLength, limitedBy: value.endIndex) ?? value.endIndex
        let prefix = start > value.startIndex ? "…" : ""
        let snippet = prefix + value[start..<end] + (end < value.endIndex ? "…" : "")
        let upper = min(range.upperBound, end)
        return (snippet, [TextRange(start: prefix.utf16.count + value.utf16.distance(from: start, to: range.lowerBound),
                                    length: value.utf16.distance(from: range.lowerBound, to: upper))])
    }
}
