import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore

/// A small HTTP client for tests, speaking Parley's JSON.
public struct TestHTTP: Sendable {
    public let baseURL: URL
    /// For an `https` base URL: the PEM of the one certificate trusted (a test server's
    /// ``TestCertificate/trustAnchorPEM``).
    public let trustAnchorPEM: String?

    /// - Parameters:
    ///   - baseURL: where the server is.
    ///   - trustAnchorPEM: for `https`, the certificate to trust instead of the system's roots.
    public init(baseURL: URL, trustAnchorPEM: String? = nil) {
        self.baseURL = baseURL
        self.trustAnchorPEM = trustAnchorPEM
    }

    public struct Reply: Sendable {
        public var status: Int
        public var body: Data
        public var headers: [String: String]

        public func decode<T: Decodable>(_ type: T.Type) throws -> T { try ParleyJSON.decode(type, from: body) }
        public var error: ErrorBody? { try? ParleyJSON.decode(ErrorBody.self, from: body) }
    }

    /// No cookie jar and no redirects followed: a test sets `Cookie` itself and sees every answer as sent.
    private static let session: URLSession = {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpCookieStorage = nil
        configuration.httpShouldSetCookies = false
        configuration.httpCookieAcceptPolicy = .never
        return URLSession(configuration: configuration, delegate: NoRedirects(), delegateQueue: nil)
    }()

    private final class NoRedirects: NSObject, URLSessionTaskDelegate {
        func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                        newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
            completionHandler(nil)
        }
    }

    public func request(_ method: String, _ path: String, body: Data? = nil, token: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        if let trustAnchorPEM {
            return try await TLSRequest(trustAnchorPEM: trustAnchorPEM).send(
                method, URL(string: path, relativeTo: baseURL)!, body: body, token: token, headers: headers)
        }
        var request = URLRequest(url: URL(string: path, relativeTo: baseURL)!)
        request.httpMethod = method
        request.httpBody = body
        if body != nil { request.setValue("application/json", forHTTPHeaderField: "Content-Type") }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.timeoutInterval = 60
        let (data, response) = try await Self.session.data(for: request)
        let http = response as! HTTPURLResponse
        var headers: [String: String] = [:]
        for (key, value) in http.allHeaderFields { headers[String(describing: key).lowercased()] = String(describing: value) }
        return Reply(status: http.statusCode, body: data, headers: headers)
    }

    public func send<Body: Encodable>(_ method: String, _ path: String, _ body: Body, token: String? = nil, headers: [String: String] = [:]) async throws -> Reply {
        try await request(method, path, body: try ParleyJSON.encode(body), token: token, headers: headers)
    }

    /// POSTs a JSON body and decodes a 2xx answer; any other status throws with the body.
    public func post<Body: Encodable, T: Decodable>(_ path: String, _ body: Body, token: String? = nil, as type: T.Type) async throws -> T {
        let reply = try await send("POST", path, body, token: token)
        guard (200..<300).contains(reply.status) else {
            throw TestFailure("POST \(path) → \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return try reply.decode(type)
    }

    /// GETs and decodes a 2xx answer.
    public func get<T: Decodable>(_ path: String, token: String?, as type: T.Type) async throws -> T {
        let reply = try await request("GET", path, token: token)
        guard (200..<300).contains(reply.status) else {
            throw TestFailure("GET \(path) → \(reply.status) \(String(decoding: reply.body, as: UTF8.self))")
        }
        return try reply.decode(type)
    }
}
