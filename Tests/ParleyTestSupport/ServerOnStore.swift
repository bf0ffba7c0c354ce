import Foundation
import ParleyServer
import ParleyStorePostgres

/// The store a test server runs on: SQLite always, PostgreSQL when `PARLEY_TEST_DATABASE_URL` is set.
public enum TestStore: String, CaseIterable, CustomStringConvertible, Sendable {
    case sqlite, postgres
    public var description: String { rawValue }

    /// `PARLEY_TEST_DATABASE_URL`, when set (`scripts/test-postgres.sh start` prints one).
    public static var postgresURL: String? {
        ProcessInfo.processInfo.environment["PARLEY_TEST_DATABASE_URL"].flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The stores this run can test.
    public static var available: [TestStore] { postgresURL == nil ? [.sqlite] : [.sqlite, .postgres] }
}

/// Runs `body` with a server on `store` (a fresh PostgreSQL database, dropped afterwards).
/// - Parameters:
///   - store: SQLite, or PostgreSQL (needs ``TestStore/postgresURL``).
///   - configure: changes to the server's configuration.
///   - body: the test, given the running server; the server stops when it returns or throws.
public func withServer(on store: TestStore, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
                       _ body: (TestServer) async throws -> Void) async throws {
    switch store {
    case .sqlite:
        try await withServer(configure: configure, body)
    case .postgres:
        guard let url = TestStore.postgresURL else { throw TestFailure("PostgreSQL needs PARLEY_TEST_DATABASE_URL") }
        let (configuration, drop) = try await PostgresAdmin.freshDatabase(url: url)
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
