import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1

/// parleyd's own HTTP requests (auth services, JWKS; webhooks and push later), under an
/// ``OutboundPolicy``: the destination is checked first, redirects are not followed (one could
/// lead to a private address), every request has a deadline and every body a size limit.
///
/// The check resolves the host, and the request resolves it again: a DNS answer that changes in
/// between (rebinding) is not caught here. Deployments that must rule it out resolve through a
/// filtering resolver or egress proxy; see docs/operations.md.
public final class OutboundClient: Sendable {
    /// A response: its status and body.
    public struct Response: Sendable {
        public var status: Int
        public var body: Data
    }

    public let policy: OutboundPolicy
    private let http: HTTPClient

    public init(policy: OutboundPolicy) {
        self.policy = policy
        var configuration = HTTPClient.Configuration(redirectConfiguration: .disallow)
        configuration.timeout = .init(connect: .seconds(Int64(max(1, policy.timeout))), read: .seconds(Int64(max(1, policy.timeout))))
        http = HTTPClient(eventLoopGroup: HTTPClient.defaultEventLoopGroup, configuration: configuration)
    }

    /// Closes the client's connections; call once, when the server stops.
    public func shutdown() async throws { try await http.shutdown() }

    /// Sends a request with an optional JSON body.
    /// - Throws: ``OutboundError`` for a refused destination, a timeout, a connection failure or a
    ///   body over ``OutboundPolicy/maximumResponseBytes``.
    public func send(_ method: HTTPMethod, _ url: URL, json body: Data? = nil, headers: [(String, String)] = []) async throws -> Response {
        try await policy.check(url)
        var request = HTTPClientRequest(url: url.absoluteString)
        request.method = method
        request.headers.add(name: "User-Agent", value: "parleyd")
        request.headers.add(name: "Accept", value: "application/json")
        for (name, value) in headers { request.headers.add(name: name, value: value) }
        if let body {
            request.headers.add(name: "Content-Type", value: "application/json")
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
