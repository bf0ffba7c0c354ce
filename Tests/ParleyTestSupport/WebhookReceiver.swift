import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// A real webhook receiver for tests: `Tests/Webhooks/receiver.py`, which checks every request's
/// Standard Webhooks signature with the `standardwebhooks` package from PyPI (in the repository's
/// `.venv`, which `scripts/test.sh` prepares), and can be told to fail.
public final class WebhookReceiver: @unchecked Sendable {
    // @unchecked: `process` is set once in init and only read afterwards.
    public let port: Int
    private let process: SpawnedProcess
    private let http: TestHTTP

    /// One request the receiver got.
    public struct Hook: Decodable, Sendable {
        public var path: String
        public var status: Int
        public var id: String?
        public var timestamp: String?
        public var signature: String?
        /// Whether the request verified with each secret given (``setSecrets(_:)``), in order.
        public var verified: [Bool]?
        public var body: String?
    }

    static var repositoryRoot: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    }

    public static var python: URL { repositoryRoot.appendingPathComponent(".venv/bin/python") }

    /// True when `.venv` has the package (`scripts/test.sh` installs it; so does
    /// `.venv/bin/pip install -r Tests/Webhooks/requirements.txt`).
    public static var isAvailable: Bool {
        FileManager.default.fileExists(atPath: python.path)
            && !((try? FileManager.default.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent(".venv/lib").path)) ?? [])
                .filter { FileManager.default.fileExists(atPath: repositoryRoot.appendingPathComponent(".venv/lib/\($0)/site-packages/standardwebhooks").path) }
                .isEmpty
    }

    /// Starts the receiver and waits until it listens.
    ///
    /// The wait reads its first line, a blocking read, so it runs outside the cooperative pool
    /// (``BlockingIO``), as ``PushProviderFake/start()`` does.
    /// - Throws: ``TestFailure`` when it does not start (with what it printed).
    public static func start() async throws -> WebhookReceiver {
        try await BlockingIO.run { try WebhookReceiver() }
    }

    private init() throws {
        let process = try SpawnedProcess(
            Self.python, arguments: [Self.repositoryRoot.appendingPathComponent("Tests/Webhooks/receiver.py").path],
            environment: ProcessInfo.processInfo.environment.merging(["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"]) { _, new in new },
            output: .pipe)
        self.process = process
        // The first line is "PORT <n>": a blocking read of the pipe until it arrives.
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = process.output!.availableData  // a pipe: asked for above
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self)
        guard let port = text.split(separator: " ").last.flatMap({ Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) }) else {
            process.stop()
            throw TestFailure("the webhook receiver did not start: \(text)")
        }
        self.port = port
        http = TestHTTP(baseURL: URL(string: "http://127.0.0.1:\(port)")!)
    }

    public var hookURL: String { "http://127.0.0.1:\(port)/hook" }

    public func setSecrets(_ secrets: [String]) async throws {
        _ = try await http.send("POST", "/_secrets", ["secrets": secrets])
    }

    /// The next `count` hooks are answered with `status`.
    public func fail(next count: Int, status: Int = 500) async throws {
        _ = try await http.send("POST", "/_fail", FailRequest(count: count, status: status))
    }

    /// The hooks received, once there are `count` (or after `timeout` seconds, with fewer).
    public func received(count: Int = 0, timeout: Double = 20) async throws -> [Hook] {
        let reply = try await http.request("GET", "/_received?count=\(count)&timeout=\(timeout)")
        return try JSONDecoder().decode([Hook].self, from: reply.body)
    }

    /// Kills the receiver: SIGKILL, not waited for (``SpawnedProcess`` reaps it), so that no
    /// thread of the cooperative pool waits for it.
    public func stop() {
        process.signal(SIGKILL)
    }

    deinit { stop() }

    private struct FailRequest: Encodable { var count: Int; var status: Int }
}
