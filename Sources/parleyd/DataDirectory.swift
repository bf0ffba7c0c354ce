import CoreMetrics
import Foundation
import Logging
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite

/// The files parleyd keeps in its data directory: the SQLite database and the token key. With a
/// PostgreSQL database the token key lives in the database instead, so every node shares it.
struct DataDirectory {
    let path: String

    var databasePath: String { (path as NSString).appendingPathComponent("parley.sqlite") }
    var tokenKeyPath: String { (path as NSString).appendingPathComponent("token.key") }

    /// Creates the directory (owner-only) when missing.
    func prepare() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The key that signs visitor tokens and derives the CSRF key.
    ///
    /// SQLite: `token.key` in this directory (made once, 32 random bytes, mode 0600). PostgreSQL:
    /// the database's shared secret, so a token made by one node is good on every other; a node
    /// upgraded from a version that kept `token.key` offers that key, so its tokens stay valid.
    func tokenKey(store: any ParleyStore, sharedDatabase: Bool) async throws -> Data {
        guard sharedDatabase else { return try tokenKey() }
        let offered = FileManager.default.contents(atPath: tokenKeyPath).flatMap { $0.count >= 32 ? $0 : nil } ?? Self.randomKey()
        return try await store.sharedSecret("token_key", proposed: offered)
    }

    private static func randomKey() -> Data {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
    }

    /// The data directory's own token key: read, or made once (32 random bytes, mode 0600).
    func tokenKey() throws -> Data {
        if let data = FileManager.default.contents(atPath: tokenKeyPath), data.count >= 32 { return data }
        let key = Self.randomKey()
        guard FileManager.default.createFile(atPath: tokenKeyPath, contents: key, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: tokenKeyPath])
        }
        return key
    }

    /// Opens the store: PostgreSQL at `database` when given (migrating it), else SQLite here.
    /// - Parameter metricsFactory: where the store counts (the server's ``ServerMetrics/factory``).
    func openStore(database: String?, logger: Logger? = nil, metricsFactory: (any MetricsFactory)? = nil) async throws -> any ParleyStore {
        try prepare()
        if let database {
            var configuration = try PostgresStore.Configuration(url: database)
            if let logger { configuration.logger = logger }
            configuration.metricsFactory = metricsFactory
            return try await PostgresStore(configuration: configuration)
        }
        var configuration = SQLiteStore.Configuration()
        configuration.metricsFactory = metricsFactory
        return try SQLiteStore(path: databasePath, configuration: configuration)
    }
}
