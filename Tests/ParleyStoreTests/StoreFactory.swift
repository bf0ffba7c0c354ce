import Foundation
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite
import Logging
import PostgresNIO
import ParleyTestSupport
import Testing

/// One database a conformance check runs against: a way to open a store on it (again, for the
/// durability checks) and a way to throw it away afterwards.
struct TestDatabase: Sendable {
    /// Opens a new store on this database; every call opens a fresh connection to the same data.
    let open: @Sendable () async throws -> any ParleyStore
    /// Removes the database (its folder, its schema…). Called once, after the last store is closed.
    let remove: @Sendable () async -> Void
}

/// Makes fresh, empty databases of one store implementation.
///
/// Every conformance test runs once per entry of ``all``. To hold another implementation to the same
/// behaviour (PostgreSQL), add a factory that creates a fresh database (or schema) per call.
struct StoreFactory: Sendable, CustomTestStringConvertible {
    let name: String
    let makeDatabase: @Sendable () async throws -> TestDatabase

    var testDescription: String { name }

    /// The implementations the suite runs against. Evaluated once; prints which stores run.
    static let all: [StoreFactory] = {
        var factories = [sqlite]
        if let url = ProcessInfo.processInfo.environment["PARLEY_TEST_DATABASE_URL"], !url.isEmpty {
            factories.append(postgres(url))
            print("ParleyStoreTests: conformance suite runs against SQLite and PostgreSQL (\(url))")
        } else {
            print("ParleyStoreTests: conformance suite runs against SQLite only; set PARLEY_TEST_DATABASE_URL=postgres://… to add PostgreSQL")
        }
        return factories
    }()

    /// A fresh database per call on the PostgreSQL server of `url` (created through its own database,
    /// dropped afterwards), so checks never see each other's rows.
    static func postgres(_ url: String) -> StoreFactory {
        StoreFactory(name: "PostgreSQL") {
            let (fresh, drop) = try await PostgresAdmin.freshDatabase(url: url)
            return TestDatabase(open: { try await PostgresStore(configuration: fresh) }, remove: drop)
        }
    }

    /// A fresh `SQLiteStore` in a unique temporary folder, file `parley.sqlite`.
    static let sqlite = StoreFactory(name: "SQLite") {
        let folder = FileManager.default.temporaryDirectory
            .appendingPathComponent("parley-store-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let path = folder.appendingPathComponent("parley.sqlite").path
        return TestDatabase(
            open: { try SQLiteStore(path: path) },
            remove: { try? FileManager.default.removeItem(at: folder) })
    }

    /// Runs `body` with a database of this kind, removing it afterwards (also when `body` throws).
    ///
    /// The body runs on ``BlockingIO``'s threads: a store's `init` and `close()` block their thread
    /// on fsync (SQLite migrates and checkpoints), which must not hold the cooperative pool the rest
    /// of the suite runs on.
    func withDatabase(_ body: (TestDatabase) async throws -> Void) async throws {
        try await BlockingIO.run {
            let database = try await makeDatabase()
            do {
                try await body(database)
            } catch {
                await database.remove()
                throw error
            }
            await database.remove()
        }
    }

    /// Runs `body` with a store on a fresh, empty database, closing and removing it afterwards.
    func withStore(_ body: (any ParleyStore) async throws -> Void) async throws {
        try await withDatabase { database in
            let store = try await database.open()
            do {
                try await body(store)
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
        }
    }
}
