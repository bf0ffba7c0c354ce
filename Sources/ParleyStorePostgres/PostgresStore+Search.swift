import Foundation
import Logging
import ParleyCore
import ParleyStore
import PostgresNIO

/// The tsvector index of message words (migration 0017-search), written beside each stored message.
///
/// The store writes tsvector and tsquery literals itself from ``SearchText``'s words, so
/// PostgreSQL's parser (which depends on the database's locale) never sees the text: both stores
/// find the same messages.
enum PostgresSearchIndex {
    /// PostgreSQL keeps at most this many positions of one lexeme.
    static let maxPositionsPerWord = 255
    /// The largest position a tsvector holds.
    static let maxPosition = 16_383

    /// `'word':1,4 'other':2`: the words of a text with their positions. Words hold only letters
    /// and digits, so quoting is enough; nil when there is nothing to index.
    static func vector(_ event: ConversationEvent) -> String? {
        guard let form = SearchQuery.indexedText(event) else { return nil }
        var positions: [String: [Int]] = [:]
        var order: [String] = []
        for (index, word) in form.split(separator: " ").enumerated() {
            let word = String(word)
            if positions[word] == nil { order.append(word) }
            if positions[word, default: []].count < maxPositionsPerWord { positions[word, default: []].append(min(index + 1, maxPosition)) }
        }
        return order.map { "'\($0)':" + positions[$0]!.map(String.init).joined(separator: ",") }.joined(separator: " ")
    }

    /// `'refu':* & 'a'`: every term, a prefix unless it is one character.
    static func query(_ terms: [String]) -> String {
        terms.map { $0.count < 2 ? "'\($0)'" : "'\($0)':*" }.joined(separator: " & ")
    }

    /// Indexes the messages among `events`, in one INSERT on the committing connection, each
    /// with its conversation's app (read in the same statement: a batch may hold several apps).
    static func insert(_ events: [ConversationEvent], on connection: PostgresConnection, logger: Logger) async throws {
        try await insert(events, namingApps: true, on: connection, logger: logger)
    }

    /// `namingApps` false writes the table as migration 0017 made it, before 0019 added `app_id`.
    private static func insert(_ events: [ConversationEvent], namingApps: Bool, on connection: PostgresConnection, logger: Logger) async throws {
        let rows = events.compactMap { event in vector(event).map { (event, $0) } }
        guard !rows.isEmpty else { return }
        var binds = PostgresBindings(capacity: rows.count * 3)
        for (event, vector) in rows {
            binds.append(event.conversationID.rawValue)
            binds.append(event.seq)
            binds.append(vector)
        }
        let values = PostgresStore.placeholders(rows: rows.count, casts: ["::text", "::bigint", "::tsvector"])
        // The VALUES keep their order, so positions follow the events' order.
        let sql = namingApps
            ? """
              INSERT INTO message_search (app_id, conversation_id, seq, words)
              SELECT c.app_id, v.conversation_id, v.seq, v.words FROM (VALUES \(values)) AS v(conversation_id, seq, words)
              JOIN conversations c ON c.id = v.conversation_id
              """
            : "INSERT INTO message_search (conversation_id, seq, words) VALUES " + values
        try await connection.query(PostgresQuery(unsafeSQL: sql, binds: binds), logger: logger)
    }

    /// Indexes every stored message, oldest first, a thousand at a time (migration 0017-search;
    /// migration 0019 then names each row's app).
    @Sendable static func backfill(_ connection: PostgresConnection, logger: Logger) async throws {
        var after = (Int64.min, "", Int64(0))
        while true {
            let rows = try await connection.query(
                """
                SELECT created_at, conversation_id, seq, body FROM events
                WHERE type = 'message' AND (created_at, conversation_id, seq) > (\(after.0), \(after.1), \(after.2))
                ORDER BY created_at, conversation_id, seq LIMIT 1000
                """, logger: logger).collect().map { $0.makeRandomAccess() }
            guard let last = rows.last else { return }
            try await insert(try rows.map(PostgresRows.event), namingApps: false, on: connection, logger: logger)
            after = (try last["created_at"].decode(Int64.self), try PostgresRows.string(last, "conversation_id"), try last["seq"].decode(Int64.self))
        }
    }

    /// The conversation filters of a search, as SQL on `c` (conversations), binding as it goes.
    static func filters(_ query: SearchQuery, _ bindings: inout PostgresBindings) -> String {
        func bind(_ value: some PostgresNonThrowingEncodable & Sendable) -> String {
            bindings.append(value)
            return "$\(bindings.count)"
        }
        var sql = "c.app_id = \(bind(query.appID.rawValue))"
        if let states = query.states {
            sql += " AND c.state IN (\(states.map(\.rawValue).sorted().map { bind($0) }.joined(separator: ", ")))"
        }
        if let queue = query.queueID { sql += " AND c.queue_id = \(bind(queue.rawValue))" }
        if let agent = query.agentID { sql += " AND c.agent_id = \(bind(agent.rawValue))" }
        if let from = query.createdFrom { sql += " AND c.created_at >= \(bind(Timestamp.millis(from)))" }
        if let before = query.createdBefore { sql += " AND c.created_at < \(bind(Timestamp.millis(before)))" }
        if let score = query.rating { sql += " AND c.id IN (SELECT conversation_id FROM ratings WHERE score = \(bind(Int64(score))))" }
        return sql
    }

    static func visitor(_ row: PostgresRandomAccessRow) throws -> SearchVisitor {
        SearchVisitor(id: VisitorID(rawValue: try PostgresRows.string(row, "visitor_id")),
                      name: try PostgresRows.optionalString(row, "visitor_name"),
                      email: try PostgresRows.optionalString(row, "visitor_email"),
                      userID: try PostgresRows.optionalString(row, "visitor_user_id"))
    }
}

extension PostgresStore {
    public func searchMessages(_ query: SearchQuery, page: MessageSearchPage) async throws -> [MessageSearchRow] {
        guard !query.terms.isEmpty else { return [] }
        let tsquery = PostgresSearchIndex.query(query.terms)
        switch page {
        case .relevance(let offset):
            var bindings = PostgresBindings()
            bindings.append(tsquery)
            let filters = PostgresSearchIndex.filters(query, &bindings)
            bindings.append(Int64(query.limit))
            bindings.append(Int64(offset))
            return try await messageRows(
                from: "message_search s", where: "s.words @@ $1::tsquery AND \(filters)",
                order: "ORDER BY ts_rank(s.words, $1::tsquery) DESC, s.position DESC LIMIT $\(bindings.count - 1) OFFSET $\(bindings.count)",
                bindings)
        case .newest(let before):
            // PostgreSQL's planner misjudges how many messages a word matches (a prefix by a factor
            // of six), and either walks a million positions for a rare word or sorts tens of
            // thousands of matches for a common one. So the store bounds both itself, in one
            // transaction: first it walks back through the app's newest `searchRecentWindow`
            // messages (bitmap scans off, so the (app, position) index is walked); a word common
            // enough fills the page there. Otherwise the word is rare in that window, so few older
            // messages match it either: those come through the GIN index (index scans off),
            // sorted by position, and only the page is joined.
            return try await transaction { connection in
                var bindings = PostgresBindings()
                // The filters bind the app first, as $1.
                let filters = PostgresSearchIndex.filters(query, &bindings)
                bindings.append(tsquery)
                let match = "$\(bindings.count)::tsquery"
                var edge = PostgresBindings()
                edge.append(query.appID.rawValue)
                edge.append(before ?? Int64.max)
                edge.append(Int64(searchRecentWindow))
                let floor = try await rows(PostgresQuery(
                    unsafeSQL: "SELECT position FROM message_search WHERE app_id = $1 AND position < $2 ORDER BY position DESC OFFSET $3 LIMIT 1",
                    binds: edge), on: connection).first.map { try $0["position"].decode(Int64.self) } ?? 0
                var recent = bindings
                recent.append(before ?? Int64.max)
                let topParameter = "$\(recent.count)"
                recent.append(floor)
                let floorParameter = "$\(recent.count)"
                recent.append(Int64(query.limit))
                try await connection.query("SET LOCAL enable_bitmapscan = off", logger: logger)
                let newest = try await messageRows(
                    from: "message_search s",
                    where: "s.app_id = $1 AND s.position < \(topParameter) AND s.position >= \(floorParameter) AND s.words @@ \(match) AND \(filters)",
                    order: "ORDER BY s.position DESC LIMIT $\(recent.count)", recent, on: connection)
                if newest.count == query.limit || floor == 0 { return newest }

                try await connection.query("SET LOCAL enable_bitmapscan = on", logger: logger)
                var reach = query.limit - newest.count
                while true {
                    try await connection.query("SET LOCAL enable_indexscan = off", logger: logger)
                    try await connection.query("SET LOCAL enable_indexonlyscan = off", logger: logger)
                    var older = PostgresBindings()
                    older.append(tsquery)
                    older.append(query.appID.rawValue)
                    older.append(floor)
                    older.append(Int64(reach))
                    let positions = try await rows(PostgresQuery(
                        unsafeSQL: "SELECT position FROM message_search WHERE words @@ $1::tsquery AND app_id = $2 AND position < $3 ORDER BY position DESC LIMIT $4",
                        binds: older), on: connection).map { try $0["position"].decode(Int64.self) }
                    try await connection.query("SET LOCAL enable_indexscan = on", logger: logger)
                    try await connection.query("SET LOCAL enable_indexonlyscan = on", logger: logger)
                    guard !positions.isEmpty else { return newest }
                    var page = bindings
                    page.append(positions)
                    let positionsParameter = "$\(page.count)"
                    page.append(Int64(query.limit - newest.count))
                    let rows = try await messageRows(
                        from: "message_search s", where: "s.position = ANY(\(positionsParameter)) AND \(filters)",
                        order: "ORDER BY s.position DESC LIMIT $\(page.count)", page, on: connection)
                    // The filters may drop some: read further back until the page is full or
                    // nothing older matches.
                    if newest.count + rows.count == query.limit || positions.count < reach { return newest + rows }
                    reach *= 8
                }
            }
        }
    }

    /// Matching messages with their conversation, visitor and event.
    private func messageRows(from source: String, where clause: String, order: String, _ bindings: PostgresBindings,
                             on connection: PostgresConnection? = nil) async throws -> [MessageSearchRow] {
        let sql = """
            SELECT s.position, c.*, v.name AS visitor_name, v.email AS visitor_email, v.user_id AS visitor_user_id, e.body AS body
            FROM \(source)
            JOIN conversations c ON c.id = s.conversation_id
            JOIN visitors v ON v.id = c.visitor_id
            JOIN events e ON e.conversation_id = s.conversation_id AND e.seq = s.seq
            WHERE \(clause)
            \(order)
            """
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: bindings), on: connection).map { row in
            MessageSearchRow(conversation: try PostgresRows.conversation(row), visitor: try PostgresSearchIndex.visitor(row),
                             event: try PostgresRows.event(row), position: try row["position"].decode(Int64.self))
        }
    }

    public func searchConversations(_ query: SearchQuery, after: ConversationSearchPosition?) async throws -> [ConversationSearchRow] {
        guard !query.text.isEmpty else { return [] }
        var bindings = PostgresBindings()
        var filters = PostgresSearchIndex.filters(query, &bindings)
        bindings.append(query.text.lowercased())
        let id = bindings.count
        bindings.append(query.likePattern)
        let like = "$\(bindings.count)"
        filters += """
             AND (lower(c.id) = $\(id) OR lower(coalesce(c.subject, '')) LIKE \(like) OR lower(c.attributes) LIKE \(like)
                  OR lower(coalesce(v.name, '')) LIKE \(like) OR lower(coalesce(v.email, '')) LIKE \(like)
                  OR lower(coalesce(v.user_id, '')) LIKE \(like) OR lower(v.attributes) LIKE \(like))
            """
        if let after {
            bindings.append(Timestamp.millis(after.updatedAt))
            let millis = "$\(bindings.count)"
            bindings.append(after.id.rawValue)
            filters += " AND (c.updated_at < \(millis) OR (c.updated_at = \(millis) AND c.id < $\(bindings.count)))"
        }
        bindings.append(Int64(query.limit))
        let sql = """
            SELECT c.*, v.name AS visitor_name, v.email AS visitor_email, v.user_id AS visitor_user_id,
                   v.attributes AS visitor_attributes
            FROM conversations c JOIN visitors v ON v.id = c.visitor_id
            WHERE \(filters)
            ORDER BY c.updated_at DESC, c.id DESC
            LIMIT $\(bindings.count)
            """
        return try await rows(PostgresQuery(unsafeSQL: sql, binds: bindings)).map { row in
            ConversationSearchRow(conversation: try PostgresRows.conversation(row), visitor: try PostgresSearchIndex.visitor(row),
                                  visitorAttributes: PostgresRows.attributes(try PostgresRows.string(row, "visitor_attributes")))
        }
    }
}
