import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore

/// Parley's HTTP API, speaking Parley's JSON over an ``HTTPTransport`` (URLSession by default).
public struct HTTPClient: Sendable {
    /// The server's base URL, e.g. `http://127.0.0.1:8080`.
    public let baseURL: URL
    let transport: any HTTPTransport
    /// Headers sent with every request (an app's own, e.g. for a gateway in front of the server).
    let headers: [String: String]
    /// Keys the server must present (``ParleyConfiguration/pinnedKeys``).
    let pinnedKeys: [PublicKeyPin]

    /// Creates a client for a server over URLSession.
    /// - Parameters:
    ///   - baseURL: the server, e.g. `https://chat.example.com`.
    ///   - session: the URLSession requests go through. Default: one of the client's own
    ///     (ephemeral: no shared cookies or cache), never `URLSession.shared`.
    ///   - headers: sent with every request; they never replace `Authorization` or `Content-Type`.
    public init(baseURL: URL, session: URLSession? = nil, headers: [String: String] = [:]) {
        self.init(baseURL: baseURL, transport: URLSessionHTTPTransport(session: session), headers: headers)
    }

    /// Creates a client for a server over a transport of your choice.
    /// - Parameters:
    ///   - baseURL: the server, e.g. `https://chat.example.com`.
    ///   - transport: how requests are sent.
    ///   - headers: sent with every request; they never replace `Authorization` or `Content-Type`.
    ///   - pinnedKeys: keys the server's certificate chain must carry one of; default none.
    public init(baseURL: URL, transport: any HTTPTransport, headers: [String: String] = [:], pinnedKeys: [PublicKeyPin] = []) {
        self.baseURL = baseURL
        self.transport = transport
        self.headers = headers
        self.pinnedKeys = pinnedKeys
    }

    /// Calls an endpoint with a JSON body and decodes its JSON answer.
    /// - Throws: ``ParleyError``: `.network` when the server cannot be reached, else the server's error.
    @discardableResult
    public func call<Body: Encodable, Response: Decodable>(
        _ endpoint: Endpoint<Body, Response>, body: Body, token: String? = nil
    ) async throws -> Response {
        try decode(endpoint, from: try await raw(endpoint, body: body, token: token))
    }

    /// Calls an endpoint that takes no body and decodes its JSON answer.
    /// - Throws: ``ParleyError``: `.network` when the server cannot be reached, else the server's error.
    @discardableResult
    public func call<Response: Decodable>(_ endpoint: Endpoint<Void, Response>, token: String? = nil) async throws -> Response {
        try decode(endpoint, from: try await raw(endpoint, body: Optional<Empty>.none, token: token))
    }

    /// Calls an endpoint with a JSON body that answers 204 No Content.
    /// - Throws: ``ParleyError``: `.network` when the server cannot be reached, else the server's error.
    public func call<Body: Encodable>(_ endpoint: Endpoint<Body, Void>, body: Body, token: String? = nil) async throws {
        _ = try await raw(endpoint, body: body, token: token)
    }

    /// Calls an endpoint that takes no body and answers 204 No Content.
    /// - Throws: ``ParleyError``: `.network` when the server cannot be reached, else the server's error.
    public func call(_ endpoint: Endpoint<Void, Void>, token: String? = nil) async throws {
        _ = try await raw(endpoint, body: Optional<Empty>.none, token: token)
    }

    private func decode<Body, Response: Decodable>(_ endpoint: Endpoint<Body, Response>, from data: Data) throws -> Response {
        do {
            return try ParleyJSON.decode(Response.self, from: data)
        } catch {
            throw ParleyError(.protocolViolation, "unexpected answer to \(endpoint.method.rawValue) \(endpoint.path)")
        }
    }

    private func raw<Body, Response>(_ endpoint: Endpoint<Body, Response>, body: (some Encodable)?, token: String?) async throws -> Data {
        guard endpoint.isComplete else { throw ParleyError.invalidInput("\(endpoint) needs its parameters, as in .conversations.get(id)") }
        let method = endpoint.method.rawValue, path = endpoint.target
        guard let url = URL(string: path, relativeTo: baseURL) else { throw ParleyError.invalidInput("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 60
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        if let body {
            request.httpBody = try ParleyJSON.encode(body)
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
        }
        if let token { request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization") }
        let data: Data, http: HTTPURLResponse
        do {
            (data, http) = try await transport.send(request, pinnedKeys: pinnedKeys)
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError.network("cannot reach \(baseURL.absoluteString): \(error.localizedDescription)")
        }
        guard (200..<300).contains(http.statusCode) else {
            throw ParleyError.server(status: http.statusCode, body: try? ParleyJSON.decode(ErrorBody.self, from: data))
        }
        return data
    }

    /// The WebSocket URL of the realtime endpoint (`ws://…/v1/realtime` or `wss://…`).
    public var realtimeURL: URL {
        var components = URLComponents(url: baseURL, resolvingAgainstBaseURL: false)!
        components.scheme = components.scheme == "https" ? "wss" : "ws"
        let realtime: Endpoint<Void, Void> = .server.realtime
        components.path = realtime.path
        return components.url!
    }
}

/// An empty JSON object.
public struct Empty: Codable, Hashable, Sendable {
    /// The empty object.
    public init() {}
}
