import CoreMetrics
import Foundation
import Logging
import ParleyCore
import ParleyStore
import PostgresNIO

/// The store for several parleyd nodes: one shared PostgreSQL database (postgres-nio, pooled).
///
/// A conversation change runs in one transaction that locks the conversation's row (`FOR UPDATE`),
/// so concurrent appends from any number of nodes get gap-free seqs. Commits are durable before the
/// call returns (`synchronous_commit = on` in every writing transaction).
public final class PostgresStore: ParleyStore {
    /// How to reach the database and how many connections to keep.
    public struct Configuration: Sendable {
        public var host: String
        public var port: Int
        public var username: String
        public var password: String?
        public var database: String?
        /// The most connections this node opens. Default 20.
        public var maximumConnections: Int = 20
        /// The most conversation changes committed in one transaction (the group commit). Default 256.
        public var maxBatch: Int = 256
        /// The most group transactions running at once, each on its own connection. Default 3.
        public var commitConcurrency: Int = 3
        /// How long a query may wait for a connection from the pool, and the connect timeout. Default 10 s.
        public var connectTimeout: Duration = .seconds(10)
        /// The logger; the store logs at debug level only. Default: a silent logger.
        public var logger: Logger = Logger(label: "parley.store.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        /// Where the store's figures go (`parley_node_notices_sent_total`,
        /// `parley_node_notice_payloads_total`, `parley_commit_batch_size`,
        /// `parley_commit_transaction_seconds`). Default nil: none.
        public var metricsFactory: (any MetricsFactory)?
        /// How many of an app's newest messages a newest-first search walks through before it asks
        /// the full-text index for older matches (decision 0020); 0 always asks the index. Default 20,000.
        public var searchRecentWindow: Int = 20_000

        public init(host: String, port: Int = 5432, username: String, password: String? = nil, database: String? = nil) {
            self.host = host
            self.port = port
            self.username = username
            self.password = password
            self.database = database
        }

        /// Reads `postgres://user[:password]@host[:port]/database[?max_connections=N&connect_timeout=S]`.
        /// - Throws: ``StoreError/invalidInput(_:)`` for anything else.
        public init(url text: String) throws {
            guard let url = URLComponents(string: text), ["postgres", "postgresql"].contains(url.scheme ?? ""),
                  let host = url.host, !host.isEmpty
            else { throw StoreError.invalidInput("database: use postgres://user[:password]@host[:port]/database") }
            self.init(host: host, port: url.port ?? 5432, username: url.user ?? "postgres", password: url.password,
                      database: url.path.isEmpty ? nil : String(url.path.dropFirst()))
            for item in url.queryItems ?? [] {
                switch item.name {
                case "max_connections":
                    guard let value = item.value.flatMap(Int.init), value >= 1 else { throw StoreError.invalidInput("database: max_connections must be 1 or more") }
                    maximumConnections = value
                case "connect_timeout":
                    guard let value = item.value.flatMap(Int.init), value >= 1 else { throw StoreError.invalidInput("database: connect_timeout is whole seconds, 1 or more") }
                    connectTimeout = .seconds(value)
                default:
                    throw StoreError.invalidInput("database: unknown option \(item.name) (max_connections, connect_timeout)")
                }
            }
        }
    }

    let client: PostgresClient
    let logger: Logger
    /// See ``Configuration/searchRecentWindow``.
    let searchRecentWindow: Int
    /// Attachments' bytes, in chunks in the database.
    public var blobs: any BlobStore { PostgresBlobStore(store: self) }
    /// This process among the nodes sharing the database: notices carry it, so a node skips its own.
    let nodeID = String(UUID().uuidString.lowercased().prefix(13))
    /// How to open a connection outside the pool (the notice listener's).
    let connectionConfiguration: PostgresConnection.Configuration
    /// The listeners of ``nodeNotices()`` streams, cancelled by ``close()``.
    let listeners = Locked<[UInt64: Task<Void, Never>]>([:])
    /// Other nodes whose listening session was gone at the last heartbeat (decision 0006): gone
    /// again at the next, they are dead, and their rows go.
    let suspectedNodes = Locked<Set<String>>([])
    /// Counts operations in flight, so ``close()`` lets them finish and refuses new ones.
    let gate = OperationGate()
    /// This node's notices to the others, sent after their commits, batched.
    let notices: NoticeBatcher
    /// Conversation changes gathered into shared transactions (``runCommitBatch(_:)``).
    let committer: BatchQueue<CommitUnit, ConversationCommit>
    /// How commit batches reach this store: set at the end of `init`, before any change can arrive.
    private let committerTarget = CommitterTarget()
    private let runner: Task<Void, Never>
    private let storedEpoch: String

    /// Connects, runs pending migrations (one node at a time) and reads the epoch.
    public init(configuration: Configuration) async throws {
        var config = PostgresClient.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: .disable)
        config.options.maximumConnections = configuration.maximumConnections
        config.options.connectTimeout = configuration.connectTimeout
        // Every transaction is durable at COMMIT: set once per connection, not per transaction.
        config.options.additionalStartupParameters = [("synchronous_commit", "on")]
        connectionConfiguration = Self.connectionConfiguration(configuration)
        // Migrations and the epoch go over a connection of their own, before the pool runs: the
        // pool is used only once its run() has started (postgres-nio warns otherwise).
        let setup = try await Self.connect(configuration)
        do {
            try await PostgresMigrations.migrate(setup, logger: configuration.logger)
            storedEpoch = try await Self.loadEpoch(setup, logger: configuration.logger)
            try? await setup.close()
        } catch {
            try? await setup.close()
            throw error
        }
        let client = PostgresClient(configuration: config, backgroundLogger: configuration.logger)
        self.client = client
        searchRecentWindow = max(0, configuration.searchRecentWindow)
        logger = configuration.logger
        let logger = configuration.logger
        notices = NoticeBatcher(logger: logger, metricsFactory: configuration.metricsFactory) { payload in
            try await client.query("SELECT pg_notify(\(NodeNoticeWire.channel), \(payload))", logger: logger)
        }
        // Started at once, on this thread, up to its first suspension: `run()` marks the pool as
        // running before it suspends, so no query can reach the pool before that (a task started
        // the usual way may run later than the first query).
        runner = Task.immediate { await client.run() }
        committer = BatchQueue(
            maxBatch: configuration.maxBatch, concurrency: configuration.commitConcurrency, metrics: configuration.metricsFactory.map { .init(factory: $0) }) {
            [committerTarget] units in
            guard let store = committerTarget.store else { throw StoreError.invalidState("the store is closed") }
            return try await store.runCommitBatch(units)
        }
        committerTarget.store = self
    }

    /// One connection, for the start's migrations and epoch, so that an unreachable server or a
    /// refused login fails the start with a clear error: the pool itself retries for ever, and a
    /// start would just hang.
    private static func connect(_ configuration: Configuration) async throws -> PostgresConnection {
        do {
            return try await PostgresConnection.connect(
                configuration: connectionConfiguration(configuration), id: 0, logger: configuration.logger)
        } catch {
            let reason = (error as? PSQLError).map { psql in
                psql.serverInfo?[.message] ?? psql.underlying.map { "\($0)" } ?? "\(psql.code)"
            } ?? "\(error)"
            throw StoreError.invalidInput(
                "cannot use PostgreSQL at \(configuration.host):\(configuration.port) as \(configuration.username): \(reason)")
        }
    }

    private static func connectionConfiguration(_ configuration: Configuration) -> PostgresConnection.Configuration {
        var config = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: .disable)
        let (seconds, attoseconds) = configuration.connectTimeout.components
        config.options.connectTimeout = .milliseconds(seconds * 1000 + attoseconds / 1_000_000_000_000_000)
        return config
    }

    private static func loadEpoch(_ connection: PostgresConnection, logger: Logger) async throws -> String {
        let candidate = UUID().uuidString.lowercased()
        try await connection.query("INSERT INTO meta (key, value) VALUES ('epoch', \(candidate)) ON CONFLICT (key) DO NOTHING", logger: logger)
        for try await value in try await connection.query("SELECT value FROM meta WHERE key = 'epoch'", logger: logger).decode(String.self) {
            return value
        }
        throw StoreError.invalidInput("the database has no epoch")
    }

    public func epoch() async throws -> String { storedEpoch }

    public func appliedMigrations() async throws -> [String] {
        try await rows("SELECT name FROM schema_migrations ORDER BY applied_at, name").map { try PostgresRows.string($0, "name") }
    }

    public func sharedSecret(_ name: String, proposed: Data) async throws -> Data {
        let key = "secret:" + name
        try await execute("INSERT INTO meta (key, value) VALUES (\(key), \(proposed.base64EncodedString())) ON CONFLICT (key) DO NOTHING")
        guard let row = try await rows("SELECT value FROM meta WHERE key = \(key)").first,
              let secret = Data(base64Encoded: try PostgresRows.string(row, "value"))
        else { throw StoreError.invalidState("the secret \(name) is unreadable") }
        return secret
    }

    public func close() async throws {
        // Changes handed in commit; then their notices go out before this node leaves.
        await committer.close()
        await notices.flush()
        // The other nodes stop counting this one's agents at once, not after its heartbeat goes stale.
        try? await leaveNodes()
        // Operations in flight finish (their commits land); new ones are refused; then the pool closes.
        await gate.close()
        let listening = listeners.withLock { listeners in
            defer { listeners = [:] }
            return Array(listeners.values)
        }
        for listener in listening { listener.cancel() }
        for listener in listening { await listener.value }
        runner.cancel()
        await runner.value
    }

    // MARK: Helpers

    /// Runs `body` in a transaction that is durable when it commits; store errors thrown inside pass through.
    func transaction<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        try gate.enter()
        defer { gate.leave() }
        return try await client.withConnection { connection in
            try await connection.query("BEGIN", logger: logger)
            do {
                let value = try await body(connection)
                try await connection.query("COMMIT", logger: logger)
                return value
            } catch {
                _ = try? await connection.query("ROLLBACK", logger: logger)
                throw error
            }
        }
    }

    /// Every row of a query, for random access by column name.
    func rows(_ query: PostgresQuery, on connection: PostgresConnection? = nil) async throws -> [PostgresRandomAccessRow] {
        if let connection {
            return try await connection.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
        }
        try gate.enter()
        defer { gate.leave() }
        return try await client.query(query, logger: logger).collect().map { $0.makeRandomAccess() }
    }

    /// Runs a statement on a pooled connection, outside any transaction (each is atomic by itself).
    func execute(_ query: PostgresQuery) async throws {
        _ = try await rows(query)
    }

    /// True when a query finds at least one row.
    func exists(_ query: PostgresQuery, on connection: PostgresConnection? = nil) async throws -> Bool {
        try await !rows(query, on: connection).isEmpty
    }
}

extension PSQLError {
    /// True for a unique-constraint violation (SQLSTATE 23505).
    var isUniqueViolation: Bool { serverInfo?[.sqlState] == "23505" }
}

/// The store the group commit's runner calls, held weakly (the store owns the queue that owns the runner).
private final class CommitterTarget: @unchecked Sendable {
    // Written once in the store's init, before the queue can run a batch; only read afterwards.
    weak var store: PostgresStore?
}
