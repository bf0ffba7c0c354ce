import Foundation
import ParleyCore
import ParleyStore
import ParleyStorePostgres
import ParleyTestSupport
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
