import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore

/// Parley's HTTP API over URLSession (which works on Linux for data tasks), speaking Parley's JSON.
public struct HTTPClient: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    let session: URLSession

    /// Creates a client for a server.
    public init(baseURL: URL, session: URLSession = .shared) {
        self.baseURL = baseURL
        self.session = session
    }

    /// Sends a request with an optional JSON body and decodes a JSON answer.
    /// - Throws: ``ParleyError``: `.network` when the server cannot be reached, else the server's error.
    public func request<Response: Decodable>(
        _ method: String, _ path: String, body: (some Encodable)? = Optional<Empty>.none, token: String? = nil,
        as type: Response.Type = Response.self
    ) async throws -> Response {
        let data = try await raw(method, path, body: body, token: token)
        do {
            return try ParleyJSON.decode(type, from: data)
        } catch {
            throw ParleyError(.protocolViolation, "unexpected answer to \(method) \(path)")
        }
    }

    /// Sends a request and ignores the answer's body.
    public func send(_ method: String, _ path: String, body: (some Encodable)? = Optional<Empty>.none, token: String? = nil) async throws {
        _ = try await raw(method, path, body: body, token: token)
    }

    private func raw(_ method: String, _ path: String, body: (some Encodable)?, token: String?) async throws -> Data {
        guard let url = URL(string: path, relativeTo: baseURL) else { throw ParleyError.invalidInput("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 60
        if let body {
            request.httpBody = try ParleyJSON.encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let data: Data, response: URLResponse
        do {
            (data, response) = try await session.dataIgnoringCancellation(for: request)
        } catch {
            throw ParleyError.network("cannot reach \(baseURL.absoluteString): \(error.localizedDescription)")
        }
        guard let http = response as? HTTPURLResponse else { throw ParleyError.network("no HTTP answer") }
        guard (200..<300).contains(http.statusCode) else {
            throw ParleyError.server(status: http.statusCode, body: try? ParleyJSON.decode(ErrorBody.self, from: data))
        }
        return data
    }

    /// The WebSocket URL of the realtime endpoint (`ws://…/v1/realtime` or `wss://…`).
    public var realtimeURL: URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        components.path = "/v1/realtime"
        return components.url!
    }
}

/// An empty JSON object, for requests without a body worth naming.
public struct Empty: Codable, Hashable, Sendable {
    /// The empty object.
    public init() {}
}
