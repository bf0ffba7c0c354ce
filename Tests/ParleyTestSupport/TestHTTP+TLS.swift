import ParleyCore
import AsyncHTTPClient
import Foundation
import NIOCore
import NIOHTTP1
import NIOSSL

extension TestHTTP {
    /// A request over HTTPS trusting one test certificate, through AsyncHTTPClient: URLSession on
    /// Linux can be given no certificate to trust. Same behaviour as the URLSession path: no
    /// cookies kept, no redirects followed.
    struct TLSRequest {
        let trustAnchorPEM: String

        /// One client per trusted certificate, for the life of the test process (never shut down).
        private static let clients = Locked<[String: HTTPClient]>([:])

        func send(_ method: String, _ url: URL, body: Data?, token: String?, headers: [String: String]) async throws -> TestHTTP.Reply {
            var request = HTTPClientRequest(url: url.absoluteString)
            request.method = .init(rawValue: method)
            if let body {
                request.body = .bytes(ByteBuffer(bytes: body))
                request.headers.add(name: "Content-Type", value: "application/json")
            }
            if let token { request.headers.add(name: "Authorization", value: "Bearer \(token)") }
            // No connection kept for later: an idle TLS connection would hold the server's graceful
            // shutdown for SwiftNIO SSL's close_notify wait (5 s).
            request.headers.add(name: "Connection", value: "close")
            for (name, value) in headers { request.headers.replaceOrAdd(name: name, value: value) }
            let response = try await client().execute(request, timeout: .seconds(60))
            let bytes = try await response.body.collect(upTo: 1 << 26)
            var replyHeaders: [String: String] = [:]
            for header in response.headers { replyHeaders[header.name.lowercased()] = header.value }
            return TestHTTP.Reply(status: Int(response.status.code), body: Data(bytes.readableBytesView), headers: replyHeaders)
        }

        private func client() throws -> HTTPClient {
            try Self.clients.withLock { clients in
                if let client = clients[trustAnchorPEM] { return client }
                var tls = TLSConfiguration.makeClientConfiguration()
                tls.trustRoots = .certificates(try NIOSSLCertificate.fromPEMBytes(Array(trustAnchorPEM.utf8)))
                var configuration = HTTPClient.Configuration(tlsConfiguration: tls, redirectConfiguration: .disallow)
                configuration.httpVersion = .http1Only
                let client = HTTPClient(eventLoopGroupProvider: .singleton, configuration: configuration)
                clients[trustAnchorPEM] = client
                return client
            }
        }
    }
}
