import ArgumentParser
import CoreMetrics
import Foundation
import Logging
import ParleyStore

/// parleyd: the Parley server.
@main
struct Parleyd: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "parleyd",
        abstract: "The Parley server: conversations, routing and realtime delivery.",
        discussion: """
            Run the server with its embedded SQLite database:
              parleyd                                # 127.0.0.1:8080, data in ./data
              parleyd serve --port 9000 --data-dir /var/lib/parley

            Upgrade the schema on purpose (serve also migrates at start):
              parleyd migrate --database postgres://parley@db/parley

            Manage apps, queues and agents on the local database:
              parleyd admin app create --name "Acme"
              parleyd admin agent create --app app_… --name Ann --email ann@acme.test
            """,
        subcommands: [Serve.self, Migrate.self, Admin.self],
        defaultSubcommand: Serve.self)
}

/// Options every subcommand shares: where the data lives, how much to log.
struct CommonOptions: ParsableArguments {
    @Option(name: .customLong("data-dir"), help: "The data directory (env PARLEY_DATA_DIR; default ./data).")
    var dataDirectory: String?

    @Option(name: .customLong("database"), help: ArgumentHelp(
        "A PostgreSQL database to share between parleyd nodes instead of SQLite in the data directory, as postgres://user[:password]@host[:port]/db[?max_connections=20&connect_timeout=10] (env PARLEY_DATABASE_URL).",
        valueName: "url"))
    var database: String?

    @Option(name: .customLong("log-level"), help: "trace, debug, info, notice, warning, error or critical (env PARLEY_LOG_LEVEL; default info).")
    var logLevel: String?

    var resolvedDataDirectory: String {
        dataDirectory ?? ProcessInfo.processInfo.environment["PARLEY_DATA_DIR"] ?? "data"
    }

    /// The PostgreSQL URL, when one is given; nil means SQLite in the data directory.
    var resolvedDatabase: String? {
        (database ?? ProcessInfo.processInfo.environment["PARLEY_DATABASE_URL"]).flatMap { $0.isEmpty ? nil : $0 }
    }

    /// The store these options name: PostgreSQL when a database URL is given, else the data directory's SQLite.
    func openStore(logger: Logger? = nil, metricsFactory: (any MetricsFactory)? = nil) async throws -> any ParleyStore {
        try await DataDirectory(path: resolvedDataDirectory).openStore(database: resolvedDatabase, logger: logger, metricsFactory: metricsFactory)
    }

    func makeLogger() -> Logger {
        let levelName = logLevel ?? ProcessInfo.processInfo.environment["PARLEY_LOG_LEVEL"] ?? "info"
        var logger = Logger(label: "parleyd")
        logger.logLevel = Logger.Level(rawValue: levelName) ?? .info
        return logger
    }
}
