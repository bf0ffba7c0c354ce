import Foundation
import ParleyServer
import ParleyStorePostgres
import ParleyTestSupport
import Testing

/// The PostgreSQL server the several-node tests use (`scripts/test-postgres.sh start` prints one).
let nodeTestDatabaseURL = ProcessInfo.processInfo.environment["PARLEY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }

/// Runs `body` with two in-process nodes on a fresh PostgreSQL database, stopping both and dropping
/// the database afterwards. `configure` adjusts both nodes' configuration.
func withTwoNodes(
    configure: (inout ServerConfiguration) -> Void = { _ in },
    _ body: (TestServer, TestServer, PostgresStore.Configuration) async throws -> Void
) async throws {
    let (configuration, drop) = try await PostgresAdmin.freshDatabase(url: try #require(nodeTestDatabaseURL))
    do {
        let one = try await TestServer.start(store: try await PostgresStore(configuration: configuration), configure: configure)
        let two = try await TestServer.start(store: try await PostgresStore(configuration: configuration), joining: one, configure: configure)
        do {
            try await body(one, two, configuration)
        } catch {
            await two.stop(); await one.stop()
            throw error
        }
        await two.stop(); await one.stop()
    } catch {
        await drop()
        throw error
    }
    await drop()
}
