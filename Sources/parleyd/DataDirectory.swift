import Foundation
import Logging
import ParleyStore
import ParleyStorePostgres
import ParleyStoreSQLite

/// The files parleyd keeps in its data directory: the SQLite database and the token key. With a
/// PostgreSQL database the directory still holds the token key, which every node must share.
struct DataDirectory {
    let path: String

    var databasePath: String { (path as NSString).appendingPathComponent("parley.sqlite") }
    var tokenKeyPath: String { (path as NSString).appendingPathComponent("token.key") }

    /// Creates the directory (owner-only) when missing.
    func prepare() throws {
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
    }

    /// The key that signs visitor tokens: read, or made once (32 random bytes, mode 0600).
    func tokenKey() throws -> Data {
        if let data = FileManager.default.contents(atPath: tokenKeyPath), data.count >= 32 { return data }
        var generator = SystemRandomNumberGenerator()
        let key = Data((0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) })
        guard FileManager.default.createFile(atPath: tokenKeyPath, contents: key, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: tokenKeyPath])
        }
        return key
    }

    /// Opens the store: PostgreSQL at `database` when given (migrating it), else SQLite here.
    func openStore(database: String?, logger: Logger? = nil) async throws -> any ParleyStore {
        try prepare()
        if let database {
            var configuration = try PostgresStore.Configuration(url: database)
            if let logger { configuration.logger = logger }
            return try await PostgresStore(configuration: configuration)
        }
        return try SQLiteStore(path: databasePath)
    }
}
