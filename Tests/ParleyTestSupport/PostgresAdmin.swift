import Foundation
import Logging
import ParleyStorePostgres
import PostgresNIO

/// Statements that cannot run in a transaction (CREATE/DROP DATABASE), on one short connection.
public enum PostgresAdmin {
    public static func execute(_ sql: String, on server: PostgresStore.Configuration) async throws {
        let configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.username, password: server.password,
            database: server.database ?? "postgres", tls: .disable)
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: Logger(label: "parley.tests.postgres"))
        do {
            try await connection.query(PostgresQuery(unsafeSQL: sql), logger: Logger(label: "parley.tests.postgres"))
        } catch {
            try? await connection.close()
            throw error
        }
        try await connection.close()
    }
}

extension PostgresAdmin {
    /// The integer a one-row, one-column query answers (a count), on one short connection.
    public static func integer(_ sql: String, on server: PostgresStore.Configuration) async throws -> Int {
        let configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.username, password: server.password,
            database: server.database ?? "postgres", tls: .disable)
        let logger = Logger(label: "parley.tests.postgres")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        for try await value in try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger).decode(Int.self) {
            return value
        }
        throw PostgresAdminError(sql: sql)
    }

    /// Every row of every table of the database's `public` schema as text (`row::text`), table by
    /// table: what a search of the stored data for a value must look through.
    public static func allRowsAsText(on server: PostgresStore.Configuration) async throws -> String {
        let configuration = PostgresConnection.Configuration(
            host: server.host, port: server.port, username: server.username, password: server.password,
            database: server.database ?? "postgres", tls: .disable)
        let logger = Logger(label: "parley.tests.postgres")
        let connection = try await PostgresConnection.connect(configuration: configuration, id: 1, logger: logger)
        defer { Task { try? await connection.close() } }
        var tables: [String] = []
        for try await name in try await connection.query("SELECT tablename FROM pg_tables WHERE schemaname = 'public' ORDER BY tablename", logger: logger)
            .decode(String.self) {
            tables.append(name)
        }
        var text = ""
        for table in tables {
            text += "-- \(table)\n"
            // The names come from the catalogue, quoted as identifiers.
            let quoted = "\"" + table.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            for try await row in try await connection.query(PostgresQuery(unsafeSQL: "SELECT t::text FROM \(quoted) t"), logger: logger).decode(String.self) {
                text += row + "\n"
            }
        }
        return text
    }

    /// A fresh, empty database on the server of `url` (for one test), and how to drop it.
    public static func freshDatabase(url: String) async throws -> (configuration: PostgresStore.Configuration, drop: @Sendable () async -> Void) {
        let server = try PostgresStore.Configuration(url: url)
        let name = "parley_test_\(UUID().uuidString.lowercased().replacingOccurrences(of: "-", with: ""))"
        try await execute("CREATE DATABASE \(name)", on: server)
        var configuration = server
        configuration.database = name
        configuration.maximumConnections = 8
        return (configuration, { try? await execute("DROP DATABASE IF EXISTS \(name) WITH (FORCE)", on: server) })
    }

}

struct PostgresAdminError: Error, CustomStringConvertible {
    var sql: String
    var description: String { "no row from: \(sql)" }
}
