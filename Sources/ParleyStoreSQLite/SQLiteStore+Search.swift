import Foundation
import GRDB
import ParleyCore
import ParleyStore

/// The FTS5 index of message words (migration 0017-search), written beside each stored message.
enum SQLiteSearchIndex {
    static func insert(_ event: ConversationEvent, in db: Database) throws {
        guard let words = SearchQuery.indexedText(event) else { return }
        try db.cachedStatement(sql: "INSERT INTO message_search (words, conversation_id, seq) VALUES (?, ?, ?)")
            .execute(arguments: [words, event.conversationID.rawValue, event.seq])
    }

    /// An FTS5 query: every term, each a quoted prefix (or a whole word for one character).
    /// Terms hold only letters and digits, so quoting them is enough to keep FTS5 syntax out.
    static func match(_ terms: [String]) -> String {
        terms.map { $0.count < 2 ? "\"\($0)\"" : "\"\($0)\"*" }.joined(separator: " AND ")
    }

    /// The conversation filters of a search, as SQL on `c` (conversations) with their arguments.
    static func filters(_ query: SearchQuery) -> (sql: String, arguments: StatementArguments) {
        var sql = "c.app_id = ?"
        var arguments: StatementArguments = [query.appID.rawValue]
        if let states = query.states {
            sql += " AND c.state IN (\(states.map { _ in "?" }.joined(separator: ", ")))"
            arguments += StatementArguments(states.map(\.rawValue).sorted())
        }
        if let queue = query.queueID {
            sql += " AND c.queue_id = ?"
            arguments += [queue.rawValue]
        }
        if let agent = query.agentID {
            sql += " AND c.agent_id = ?"
            arguments += [agent.rawValue]
        }
        if let from = query.createdFrom {
            sql += " AND c.created_at >= ?"
            arguments += [Timestamp.millis(from)]
        }
        if let before = query.createdBefore {
            sql += " AND c.created_at < ?"
            arguments += [Timestamp.millis(before)]
        }
        if let score = query.rating {
            sql += " AND c.id IN (SELECT conversation_id FROM ratings WHERE score = ?)"
            arguments += [score]
        }
        return (sql, arguments)
    }

    static func visitor(_ row: Row) -> SearchVisitor {
        SearchVisitor(id: VisitorID(rawValue: row["visitor_id"]), name: row["visitor_name"], email: row["visitor_email"],
                      userID: row["visitor_user_id"])
    }
}

extension SQLiteStore {
    public func searchMessages(_ query: SearchQuery, page: MessageSearchPage) async throws -> [MessageSearchRow] {
        guard !query.terms.isEmpty else { return [] }
        let filters = SQLiteSearchIndex.filters(query)
        var arguments: StatementArguments = [SQLiteSearchIndex.match(query.terms)] + filters.arguments
        let order: String
        switch page {
        case .newest(let before):
            // The index drives (CROSS JOIN keeps it the outer loop) newest first, so SQLite stops
            // as soon as the page is full.
            order = (before == nil ? "" : " AND s.rowid < ?") + " ORDER BY s.rowid DESC LIMIT ?"
            if let before { arguments += [before] }
            arguments += [query.limit]
        case .relevance(let offset):
            order = " ORDER BY s.rank, s.rowid DESC LIMIT ? OFFSET ?"
            arguments += [query.limit, offset]
        }
        let sql = """
            SELECT s.rowid AS position, c.*, v.name AS visitor_name, v.email AS visitor_email, v.user_id AS visitor_user_id, e.body AS body
            FROM message_search s
            CROSS JOIN conversations c ON c.id = s.conversation_id
            CROSS JOIN visitors v ON v.id = c.visitor_id
            CROSS JOIN events e ON e.conversation_id = s.conversation_id AND e.seq = s.seq
            WHERE message_search MATCH ? AND \(filters.sql)\(order)
            """
        let bound = arguments
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: bound).map { row in
                MessageSearchRow(conversation: SQLiteRows.conversation(row), visitor: SQLiteSearchIndex.visitor(row),
                                 event: try SQLiteRows.event(row), position: row["position"])
            }
        }
    }

    public func searchConversations(_ query: SearchQuery, after: ConversationSearchPosition?) async throws -> [ConversationSearchRow] {
        guard !query.text.isEmpty else { return [] }
        var filters = SQLiteSearchIndex.filters(query)
        let pattern = query.likePattern
        // SQLite's lower() folds ASCII letters only; GRDB's swiftLowercaseString is Swift's
        // lowercased(), as the query is, so "Ärger" finds "Zoë Ärger" as on PostgreSQL.
        filters.sql += """
             AND (lower(c.id) = ? OR swiftLowercaseString(coalesce(c.subject, '')) LIKE ? ESCAPE '\\'
                  OR swiftLowercaseString(c.attributes) LIKE ? ESCAPE '\\'
                  OR swiftLowercaseString(coalesce(v.name, '')) LIKE ? ESCAPE '\\' OR swiftLowercaseString(coalesce(v.email, '')) LIKE ? ESCAPE '\\'
                  OR swiftLowercaseString(coalesce(v.user_id, '')) LIKE ? ESCAPE '\\' OR swiftLowercaseString(v.attributes) LIKE ? ESCAPE '\\')
            """
        filters.arguments += [query.text.lowercased(), pattern, pattern, pattern, pattern, pattern, pattern]
        if let after {
            filters.sql += " AND (c.updated_at < ? OR (c.updated_at = ? AND c.id < ?))"
            let millis = Timestamp.millis(after.updatedAt)
            filters.arguments += [millis, millis, after.id.rawValue]
        }
        let sql = """
            SELECT c.*, v.name AS visitor_name, v.email AS visitor_email, v.user_id AS visitor_user_id,
                   v.attributes AS visitor_attributes
            FROM conversations c JOIN visitors v ON v.id = c.visitor_id
            WHERE \(filters.sql)
            ORDER BY c.updated_at DESC, c.id DESC
            LIMIT ?
            """
        let arguments = filters.arguments + [query.limit]
        return try await pool.read { db in
            try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
                ConversationSearchRow(conversation: SQLiteRows.conversation(row), visitor: SQLiteSearchIndex.visitor(row),
                                      visitorAttributes: SQLiteRows.attributes(row["visitor_attributes"]))
            }
        }
    }
}
