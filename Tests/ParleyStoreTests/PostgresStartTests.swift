import Foundation
import ParleyCore
import ParleyStore
@testable import ParleyStorePostgres
import ParleyTestSupport
import PostgresNIO
import Testing

/// How a PostgreSQL store starts: migrations and the epoch over a connection of their own, the
/// pool used only once it runs, so postgres-nio never warns that a connection was asked of a pool
/// whose `run()` has not been called (seen on about a third of parleyd's starts before).
@Suite("PostgreSQL start", .enabled(if: TestStore.postgresURL != nil, "set PARLEY_TEST_DATABASE_URL"))
struct PostgresStartTests {
    @Test func startingAgainAndAgain_neverLeasesFromAPoolThatDoesNotRunYet() async throws {
        let (fresh, drop) = try await PostgresAdmin.freshDatabase(url: try #require(TestStore.postgresURL))
        defer { Task { await drop() } }
        let log = CapturedLog()
        for round in 0..<20 {
            var configuration = fresh
            configuration.logger = log.logger("postgres-start-\(round)")
            let store = try await PostgresStore(configuration: configuration)
            // The first queries a server makes at once: the epoch, then active conversations.
            #expect(try await !store.epoch().isEmpty)
            _ = try await store.activeConversations()
            try await store.close()
        }
        #expect(!log.text.contains("hasn't been called yet"), "\(log.text.split(separator: "\n").filter { $0.contains("run()") }.prefix(3))")
        #expect(log.count > 0, "the store logged through the given logger")
    }
}

/// Nodes that die without saying so (SIGKILL, a crash): their listening session ends with them, so
/// the next heartbeat of a live node stops counting their agents, and the one after removes their
/// rows, without waiting for their heartbeat to go stale (decision 0006).
@Suite("PostgreSQL dead nodes", .enabled(if: TestStore.postgresURL != nil, "set PARLEY_TEST_DATABASE_URL"))
struct PostgresDeadNodeTests {
    /// Polls until `node`'s listening session is (or is no longer) in the database.
    static func session(of node: PostgresStore, present: Bool, seenBy store: PostgresStore) async throws {
        for _ in 0..<500 {
            let found = try await store.rows(
                "SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND application_name = \(PostgresStore.sessionName(of: node.nodeID))")
            if found.isEmpty != present { return }
            try await Task.sleep(for: .milliseconds(10))
        }
        throw TestFailure("the session of node \(node.nodeID) never became \(present ? "present" : "absent")")
    }

    @Test func aNodeWhoseSessionEnded_isNotCounted_thenForgotten() async throws {
        let (fresh, drop) = try await PostgresAdmin.freshDatabase(url: try #require(TestStore.postgresURL))
        defer { Task { await drop() } }
        let dying = try await PostgresStore(configuration: fresh)
        let living = try await PostgresStore(configuration: fresh)
        let listening = Task { for await _ in dying.nodeNotices() {} }
        let hearing = Task { for await _ in living.nodeNotices() {} }
        try await Self.session(of: dying, present: true, seenBy: living)
        let agent = AgentID.generate()
        try await dying.setPresence(agent: agent, connections: 2)
        let before = try await living.heartbeat(staleAfter: 3_600)
        #expect(before.remoteConnections == [agent: 2] && before.nodesLost == 0)
        // A live node's session is there at every beat: nothing changes.
        #expect(try await living.heartbeat(staleAfter: 3_600).remoteConnections == [agent: 2])

        // The node dies without leaving (its listener's session ends, its rows stay).
        listening.cancel()
        try await Self.session(of: dying, present: false, seenBy: living)
        let first = try await living.heartbeat(staleAfter: 3_600)
        #expect(first.remoteConnections.isEmpty && first.nodesLost == 0, "not counted at once, its rows kept for one beat")
        let second = try await living.heartbeat(staleAfter: 3_600)
        #expect(second.nodesLost == 1 && second.remoteConnections.isEmpty)
        let rows = try await living.rows("SELECT node_id FROM agent_presence")
        #expect(rows.isEmpty, "its presence rows are gone")
        hearing.cancel()
        try await living.close()
        try await dying.close()
    }
}

/// Newest-first search on PostgreSQL walks the newest positions, then asks the index for older
/// matches (decision 0020): pages must be the same wherever that boundary falls. A window of a
/// million walks everything; 0 asks the index for everything; 4 splits a page in two.
@Suite("PostgreSQL search paths", .enabled(if: TestStore.postgresURL != nil, "set PARLEY_TEST_DATABASE_URL"))
struct PostgresSearchPathTests {
    @Test func fewMatchesAndManyMatches_giveTheSamePages() async throws {
        let (fresh, drop) = try await PostgresAdmin.freshDatabase(url: try #require(TestStore.postgresURL))
        defer { Task { await drop() } }
        var wide = fresh
        wide.searchRecentWindow = 1_000_000
        var narrow = fresh
        narrow.searchRecentWindow = 0
        var split = fresh
        split.searchRecentWindow = 2
        let store = try await PostgresStore(configuration: wide)
        let app = App(id: .generate(), name: "Acme", createdAt: Date())
        try await store.insertApp(app, secretKey: "sk")
        let queue = Queue(id: .generate(), appID: app.id, name: "Support", createdAt: Date())
        try await store.insertQueue(queue)
        let visitor = try await store.upsertVisitor(app: app.id, deviceID: "device-1", profile: .init(name: "Vera"), at: Date())
        let id = ConversationID.generate()
        _ = try await store.commit(.open(.init(id: id, appID: app.id, queueID: queue.id, visitorID: visitor.id, visitorName: "Vera",
                                               subject: nil, attributes: [:], queueRank: 1, at: Date())))
        for index in 0..<7 {
            _ = try await store.commit(.postMessage(.init(conversationID: id, appID: app.id, author: .visitor(visitor.id, name: "Vera"),
                                                          clientMessageID: "m-\(index)", text: index == 3 ? "parcel lost" : "parcel \(index)",
                                                          reopenRank: 1, at: Date())))
        }
        let other = try await PostgresStore(configuration: narrow)
        func pages(_ store: PostgresStore, _ text: String) async throws -> [[Int64]] {
            var pages: [[Int64]] = []
            var before: Int64?
            while true {
                let rows = try await store.searchMessages(SearchQuery(appID: app.id, terms: SearchText.queryTerms(text), text: text, limit: 3),
                                                          page: .newest(before: before))
                if rows.isEmpty { return pages }
                pages.append(rows.map(\.event.seq))
                before = rows.last?.position
            }
        }
        let everyMessage = try await pages(store, "parcel")
        #expect(everyMessage == [[8, 7, 6], [5, 4, 3], [2]], "newest first, paged")
        #expect(try await pages(other, "parcel") == everyMessage, "the index alone gives the same pages")
        let splitting = try await PostgresStore(configuration: split)
        #expect(try await pages(splitting, "parcel") == everyMessage, "half walked, half from the index")
        for each in [store, other, splitting] { #expect(try await pages(each, "lost") == [[5]]) }
        try await splitting.close()
        try await other.close()
        try await store.close()
    }
}
