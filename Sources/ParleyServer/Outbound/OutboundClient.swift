import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL
import ParleyCore

/// parleyd's own HTTP requests (auth services, JWKS, webhooks, push), under an
/// ``OutboundPolicy``: the destination is checked first, redirects are not followed (one could
/// lead to a private address), every request has a deadline and every body a size limit.
///
/// ``send(_:_:json:headers:)`` (auth services, key sets) checks the host, and the request resolves it
/// again: a DNS answer that changes in between (rebinding) is not caught there; see
/// docs/operations.md. ``post(_:body:contentType:headers:)`` (webhooks, push) connects to the address it checked.
public final class OutboundClient: Sendable {
    /// A response: its status and body.
    public struct Response: Sendable {
        public var status: Int
        public var body: Data
    }

    public let policy: OutboundPolicy
    private let http: HTTPClient
    /// Clients that connect to one checked address for one host (``post(_:body:contentType:headers:)``), kept
    /// for their connections; at most ``pinnedLimit``.
    private let pinned = Locked<[String: HTTPClient]>([:])
    /// Set by ``shutdown()``: a request still in flight then keeps no client (every HTTPClient must
    /// be shut down before it goes, or AsyncHTTPClient traps).
    private let isShutDown = Locked(false)
    private let pinnedLimit = 64
    /// Certificates trusted beside the system's (a test's local push provider).
    private let trustRootsFile: String?

    /// A client under `policy`. With `trustRootsFile` (PEM), servers whose certificates chain to
    /// those are trusted too (`parleyd --outbound-ca-file`, for local fakes of push providers).
    public init(policy: OutboundPolicy, trustRootsFile: String? = nil) {
        self.policy = policy
        self.trustRootsFile = trustRootsFile
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.configuration(policy, trustRootsFile, dnsOverride: [:]))
    }

    /// No redirects, the policy's timeouts, HTTP/2 when the server offers it (ALPN: APNs needs it).
    private static func configuration(_ policy: OutboundPolicy, _ trustRootsFile: String?, dnsOverride: [String: String]) -> HTTPClient.Configuration {
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(Int64(max(1, policy.timeout))), read: .seconds(Int64(max(1, policy.timeout))))
        configuration.httpVersion = .automatic
        configuration.dnsOverride = dnsOverride
        if let trustRootsFile {
            var tls = TLSConfiguration.makeClientConfiguration()
            tls.additionalTrustRoots = [.file(trustRootsFile)]
            configuration.tlsConfiguration = tls
        }
        return configuration
    }

    /// Closes the client's connections; call once, when the server stops.
    public func shutdown() async throws {
        // Under the pinned lock, as `post` checks it: no client is kept after this takes them.
        let clients = pinned.withLock { pinned in
            isShutDown.withLock { $0 = true }
            defer { pinned = [:] }
            return Array(pinned.values)
        }
        for client in clients { try? await client.shutdown() }
        try await http.shutdown()
    }

    /// POSTs a body (JSON unless `contentType` says otherwise) to a URL an admin gave or a push
    /// provider's, connecting to the very address the
    /// policy checked (``OutboundPolicy/checkedAddress(_:)``): the host name still names the TLS
    /// server and the `Host` header, but a DNS answer that changes after the check is never used.
    /// Redirects are not followed: a 3xx is the answer.
    /// - Throws: ``OutboundError`` for a refused destination, a timeout, a connection failure or a
    ///   body over ``OutboundPolicy/maximumResponseBytes``.
    public func post(_ url: URL, body: Data, contentType: String = "application/json", headers: [(String, String)]) async throws -> Response {
        let address = try await policy.checkedAddress(url)
        func send(using client: HTTPClient) async throws -> Response {
            try await execute(.POST, url, body: body, contentType: contentType, headers: headers, using: client)
        }
        guard let address, let host = url.host else { return try await send(using: http) }
        let key = host + "|" + address
        if let client = pinned.withLock({ $0[key] }) { return try await send(using: client) }
        let client = makeClient(dnsOverride: [host: address])
        let kept = pinned.withLock { pinned -> Bool in
            guard pinned.count < pinnedLimit, pinned[key] == nil, !isShutDown.withLock({ $0 }) else { return false }
            pinned[key] = client
            return true
        }
        if kept { return try await send(using: client) }
        // Over the limit: a client for this request only.
        do {
            let response = try await send(using: client)
            try? await client.shutdown()
            return response
        } catch {
            try? await client.shutdown()
            throw error
        }
    }

    private func makeClient(dnsOverride: [String: String]) -> HTTPClient {
        HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: Self.configuration(policy, trustRootsFile, dnsOverride: dnsOverride))
    }

    /// Sends a request with an optional JSON body.
    /// - Throws: ``OutboundError`` for a refused destination, a timeout, a connection failure or a
    ///   body over ``OutboundPolicy/maximumResponseBytes``.
    public func send(_ method: HTTPMethod, _ url: URL, json body: Data? = nil, headers: [(String, String)] = []) async throws -> Response {
        try await policy.check(url)
        return try await execute(method, url, body: body, contentType: "application/json", headers: headers, using: http)
    }

    private func execute(
        _ method: HTTPMethod, _ url: URL, body: Data?, contentType: String, headers: [(String, String)], using http: HTTPClient
    ) async throws -> Response {
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        request.headers.add(name: "User-Agent", value: "parleyd")
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: contentType)
            request.body = .bytes(ByteBuffer(bytes: body))
        }
        do {
            let timeout = TimeAmount.milliseconds(Int64(policy.timeout * 1000))
            let response = try await http.execute(request, timeout: timeout)
            let collected = try await response.body.collect(upTo: policy.maximumResponseBytes)
            return Response(status: Int(response.status.code), body: Data(collected.readableBytesView))
        } catch let error as OutboundError {
            throw error
        } catch let error as HTTPClientError where error == .deadlineExceeded || error == .readTimeout || error == .connectTimeout {
            throw OutboundError("\(url.host ?? "the server") did not answer within \(policy.timeout) s")
        } catch is NIOTooManyBytesError {
            throw OutboundError("\(url.host ?? "the server") answered with more than \(policy.maximumResponseBytes) bytes")
        } catch {
            throw OutboundError("\(url.host ?? "the server") could not be reached (\(error))")
        }
    }
}
