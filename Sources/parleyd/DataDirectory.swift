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

    var secretsKeyPath: String { (path as NSString).appendingPathComponent("secrets.key") }

    /// The key that seals secrets kept in the database (webhook signing secrets): from `file`, else
    /// from `environment` (base64 or hex), else `secrets.key` here (made once, 32 random bytes, mode
    /// 0600). Unlike the token key it is never stored in the database: a copy of the database alone
    /// must not open the secrets. With several nodes, give each the same key.
    /// - Throws: `ValidationError`-like errors naming a key that is not 32 bytes.
    func secretsKey(file: String?, environment: String?) throws -> Data {
        if let file {
            guard let contents = FileManager.default.contents(atPath: file) else { throw SecretsKeyError("--secrets-key-file: cannot read \(file)") }
            return try Self.key(from: contents, named: "--secrets-key-file")
        }
        if let environment { return try Self.key(from: Data(environment.utf8), named: "PARLEY_SECRETS_KEY") }
        if let contents = FileManager.default.contents(atPath: secretsKeyPath) { return try Self.key(from: contents, named: secretsKeyPath) }
        try prepare()
        let key = Self.randomKey()
        guard FileManager.default.createFile(atPath: secretsKeyPath, contents: key, attributes: [.posixPermissions: 0o600]) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: secretsKeyPath])
        }
        return key
    }

    /// 32 raw bytes, or 64 hex digits, or the base64 of 32 bytes (surrounding whitespace ignored).
    static func key(from contents: Data, named name: String) throws -> Data {
        if contents.count == 32 { return contents }
        let text = String(decoding: contents, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.count == 64, text.allSatisfy(\.isHexDigit) {
            var bytes: [UInt8] = []
            var index = text.startIndex
            while index < text.endIndex {
                let next = text.index(index, offsetBy: 2)
                bytes.append(UInt8(text[index..<next], radix: 16)!)
                index = next
            }
            return Data(bytes)
        }
        if let decoded = Data(base64Encoded: text), decoded.count == 32 { return decoded }
        throw SecretsKeyError("\(name): the secrets key must be 32 bytes (raw, 64 hex digits or base64)")
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

/// A secrets key that cannot be used.
struct SecretsKeyError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
