import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Local fakes of Apple's APNs and Google's FCM HTTP v1 (with its OAuth token endpoint) for push
/// tests: `Tests/Push/fake_providers.py`, run with the repository's `.venv` (which `scripts/test.sh`
/// prepares). It serves HTTP/2 over TLS at ``tlsURL`` with a certificate from its own CA
/// (``caFile``), checks each request as the real service would (the APNs provider token against
/// ``apnsKeyPEM``, the OAuth assertion against ``serviceAccountJSON``, headers and payloads), answers
/// with the real services' errors, and records every request; see `Tests/Push/README.md`.
///
/// Point parleyd's APNs and FCM base URLs at ``tlsURL`` (the service account's `token_uri` already
/// points there), then read back ``requests(provider:)``.
public final class PushProviderFake: @unchecked Sendable {
    // @unchecked: everything is set once in init and only read afterwards.

    /// The base URL of APNs, OAuth and FCM, e.g. `https://127.0.0.1:50123` (no trailing slash).
    public let tlsURL: String
    /// The plain-HTTP control API (`GET /requests`, `POST /mode`, `POST /reset`), as `parley chat --push-demo` takes it.
    public let controlURL: String
    /// The path of the PEM of the CA that signed the fake's certificate (for `127.0.0.1` and `localhost`).
    public let caFile: String
    /// The APNs signing key, as Apple's `.p8` files hold it: a P-256 key in PKCS#8 PEM.
    public let apnsKeyPEM: String
    /// The key id that provider tokens must carry as `kid`.
    public let apnsKeyID: String
    /// The team id that provider tokens must carry as `iss`.
    public let apnsTeamID: String
    /// A Google service-account file (JSON) whose `token_uri` is the fake's `/token`.
    public let serviceAccountJSON: String
    /// The only FCM project the fake knows (`parley-fake`).
    public let fcmProjectID: String

    /// Its standard input stays open for the fake's lifetime: it exits when that pipe closes
    /// (`--exit-on-stdin-eof`).
    private let process: SpawnedProcess
    private let directory: URL
    private let http: TestHTTP

    /// One request the TLS port got, as recorded.
    public struct Request: Decodable, Sendable {
        /// `apns`, `fcm` or `oauth`.
        public var provider: String
        /// The request's path, e.g. `/3/device/<token>` or `/v1/projects/parley-fake/messages:send`.
        public var path: String
        /// `2` for HTTP/2, `1.1` for HTTP/1.1.
        public var httpVersion: String
        /// The request's headers, by lowercased name (repeated ones joined with `, `).
        public var headers: [String: String]
        /// The request's body as text.
        public var body: String
        /// The status the fake answered.
        public var status: Int
        /// The APNs device token or FCM registration token addressed; nil for OAuth.
        public var token: String?

        enum CodingKeys: String, CodingKey {
            case provider, path, httpVersion = "http_version", headers, body, status, token
        }
    }

    /// True when `.venv` has hypercorn (`scripts/test.sh` installs it; so does
    /// `.venv/bin/pip install -r Tests/Push/requirements.txt`).
    public static var isAvailable: Bool {
        let root = WebhookReceiver.repositoryRoot
        let lib = root.appendingPathComponent(".venv/lib")
        return FileManager.default.fileExists(atPath: WebhookReceiver.python.path)
            && ((try? FileManager.default.contentsOfDirectory(atPath: lib.path)) ?? []).contains {
                FileManager.default.fileExists(atPath: lib.appendingPathComponent("\($0)/site-packages/hypercorn").path)
            }
    }

    /// Starts the fake with fresh credentials in a new temporary directory, and waits until it listens.
    ///
    /// The wait reads its first line, a blocking read, so it runs outside the cooperative pool
    /// (``BlockingIO``): a fake takes from half a second to seconds to start when the machine is
    /// busy, and several starting at once would hold every pool thread, and every other test.
    /// - Throws: ``TestFailure`` when it does not start (with the end of its log).
    public static func start() async throws -> PushProviderFake {
        try await BlockingIO.run { try PushProviderFake() }
    }

    private init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("parley-push-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let log = directory.appendingPathComponent("fake.log")
        guard FileManager.default.createFile(atPath: log.path, contents: nil) else {
            throw TestFailure("cannot create \(log.path)")
        }

        process = try SpawnedProcess(
            WebhookReceiver.python,
            arguments: [
                WebhookReceiver.repositoryRoot.appendingPathComponent("Tests/Push/fake_providers.py").path,
                "--dir", directory.path,
                // The fake stops when this pipe closes, so a test process that dies leaves none behind.
                "--exit-on-stdin-eof",
            ],
            environment: ProcessInfo.processInfo.environment.merging(["PYTHONDONTWRITEBYTECODE": "1", "PYTHONUNBUFFERED": "1"]) { _, new in new },
            // A file, not a pipe, for stderr: nobody reads it while the fake runs, and a full pipe would block it.
            input: .pipe, output: .pipe, errors: .file(log))

        // The first line is the JSON that says where everything is: a blocking read until it arrives
        // (or end of file, if the fake failed).
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = process.output!.availableData  // a pipe: asked for above
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        guard let ready = try? decoder.decode(Ready.self, from: line.prefix { $0 != UInt8(ascii: "\n") }),
              let apnsKey = try? String(contentsOfFile: ready.apnsKeyFile, encoding: .utf8),
              let account = try? String(contentsOfFile: ready.serviceAccountFile, encoding: .utf8),
              let controlURL = URL(string: ready.controlUrl)
        else {
            process.stop()
            let logText = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: directory)
            throw TestFailure("the push provider fake did not start: \(String(decoding: line, as: UTF8.self))\n\(logText.suffix(2000))")
        }
        tlsURL = ready.tlsUrl
        caFile = ready.caFile
        apnsKeyPEM = apnsKey
        apnsKeyID = ready.apnsKeyId
        apnsTeamID = ready.apnsTeamId
        serviceAccountJSON = account
        fcmProjectID = ready.fcmProjectId
        self.controlURL = controlURL.absoluteString
        http = TestHTTP(baseURL: controlURL)
    }

    /// The requests recorded so far, in arrival order.
    /// - Parameter provider: only those of `apns`, `fcm` or `oauth`; nil for all.
    public func requests(provider: String? = nil) async throws -> [Request] {
        let path = provider.map { "/requests?provider=\($0)" } ?? "/requests"
        let reply = try await http.request("GET", path)
        guard reply.status == 200 else { throw TestFailure("GET \(path) → \(reply.status)") }
        return try JSONDecoder().decode([Request].self, from: reply.body)
    }

    /// The requests recorded, once there are at least `count`, polling every 50 ms.
    /// - Parameters:
    ///   - count: how many records to wait for.
    ///   - provider: count and return only those of `apns`, `fcm` or `oauth`; nil for all.
    ///   - timeout: seconds after which it throws ``TestFailure`` (a safety net: tests await the count).
    public func requests(count: Int, provider: String?, timeout: TimeInterval) async throws -> [Request] {
        var limit = WaitLimit(.seconds(timeout))
        while true {
            let found = try await requests(provider: provider)
            if found.count >= count { return found }
            if limit.isSpent() {
                throw TestFailure("the push provider fake got \(found.count) \(provider.map { "\($0) " } ?? "")requests, not \(count), in \(limit.limit)")
            }
            try await Task.sleep(nanoseconds: 50_000_000)
        }
    }

    /// Changes how the fake answers; nil leaves a setting as it is.
    /// - Parameters:
    ///   - down: answer every valid push with 503 (APNs `ServiceUnavailable`, FCM `UNAVAILABLE`).
    ///   - throttle: answer every valid push with 429 (APNs `TooManyRequests`, FCM `RESOURCE_EXHAUSTED`).
    ///   - gone: tokens no longer registered (APNs 410 `Unregistered`, FCM 404 `UNREGISTERED`); replaces the list.
    ///   - bad: tokens that are invalid (APNs 400 `BadDeviceToken`, FCM 400 `INVALID_ARGUMENT`); replaces the list.
    public func setMode(down: Bool? = nil, throttle: Bool? = nil, gone: [String]? = nil, bad: [String]? = nil) async throws {
        let reply = try await http.send("POST", "/mode", Mode(down: down, throttle: throttle, gone: gone, bad: bad))
        guard reply.status == 200 else { throw TestFailure("POST /mode → \(reply.status)") }
    }

    /// Forgets the records and the modes (OAuth access tokens already issued stay valid).
    public func reset() async throws {
        let reply = try await http.request("POST", "/reset")
        guard reply.status == 200 else { throw TestFailure("POST /reset → \(reply.status)") }
    }

    /// Kills the fake and removes its directory. Safe to call more than once.
    ///
    /// SIGKILL, not waited for (``SpawnedProcess`` reaps it): the fake keeps nothing that needs a
    /// clean exit, and its graceful shutdown takes 2 s, which a synchronous stop would hold a
    /// thread of the cooperative pool for.
    public func stop() {
        process.signal(SIGKILL)
        try? FileManager.default.removeItem(at: directory)
    }

    deinit { stop() }

    /// The fake's first line of output (snake_case keys, decoded with `.convertFromSnakeCase`).
    private struct Ready: Decodable {
        var tlsUrl, controlUrl, caFile, apnsKeyFile, apnsKeyId, apnsTeamId, serviceAccountFile, fcmProjectId: String
    }

    private struct Mode: Encodable {
        var down: Bool?
        var throttle: Bool?
        var gone: [String]?
        var bad: [String]?
    }
}
