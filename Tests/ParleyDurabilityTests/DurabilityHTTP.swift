import Foundation
import ParleyCore
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// A small HTTP client for the test: JSON in, status and bytes out, no caching, no cookies.
struct DurabilityHTTP: Sendable {
    let session: URLSession

    init(maxConnections: Int) {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.httpMaximumConnectionsPerHost = maxConnections
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        configuration.urlCache = nil
        configuration.httpShouldSetCookies = false
        configuration.timeoutIntervalForRequest = 10
        session = URLSession(configuration: configuration)
    }

    /// One request. Throws on a transport error (refused, reset, timed out); any HTTP status is returned.
    func request(_ method: String, _ url: URL, token: String? = nil, body: Data? = nil, timeout: TimeInterval = 10) async throws -> (Int, Data) {
        guard url.host == "127.0.0.1" else { throw DurabilityError("refusing to send to \(url): the test talks only to 127.0.0.1") }
        var request = URLRequest(url: url, cachePolicy: .reloadIgnoringLocalCacheData, timeoutInterval: timeout)
        request.httpMethod = method
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        if let body {
            request.httpBody = body
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        let (data, response) = try await session.data(for: request)
        guard let http = response as? HTTPURLResponse else { throw DurabilityError("not an HTTP response from \(url)") }
        return (http.statusCode, data)
    }

    /// A request whose answer must have `status`, decoded with Parley's coders.
    func json<Response: Decodable>(
        _ method: String, _ url: URL, token: String? = nil, body: Data? = nil, expect status: Int = 200, as type: Response.Type = Response.self
    ) async throws -> Response {
        let (code, data) = try await request(method, url, token: token, body: body)
        guard code == status else {
            throw DurabilityError("\(method) \(url.path) answered \(code), expected \(status): \(String(decoding: data, as: UTF8.self))")
        }
        return try ParleyJSON.decode(Response.self, from: data)
    }
}
