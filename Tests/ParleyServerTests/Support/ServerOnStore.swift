import Foundation
import ParleyServer
import ParleyStorePostgres
import ParleyTestSupport
import Testing

/// The store a test server runs on: SQLite always, PostgreSQL when `PARLEY_TEST_DATABASE_URL` is set.
enum TestStore: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite, postgres
    var description: String { rawValue }

    /// The stores this run can test.
    static var available: [TestStore] { nodeTestDatabaseURL == nil ? [.sqlite] : [.sqlite, .postgres] }
}

/// Runs `body` with a server on `store` (a fresh PostgreSQL database, dropped afterwards).
func withServer(on store: TestStore, configure: @escaping (inout ServerConfiguration) -> Void, _ body: (TestServer) async throws -> Void) async throws {
    switch store {
    case .sqlite:
        try await withServer(configure: configure, body)
    case .postgres:
        let (configuration, drop) = try await PostgresAdmin.freshDatabase(url: try #require(nodeTestDatabaseURL))
        do {
            let server = try await TestServer.start(store: try await PostgresStore(configuration: configuration), configure: configure)
            do { try await body(server) } catch { await server.stop(); throw error }
            await server.stop()
        } catch {
            await drop()
            throw error
        }
        await drop()
    }
}
