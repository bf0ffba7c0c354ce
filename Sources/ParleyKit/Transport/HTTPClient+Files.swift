import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import ParleyCore

extension HTTPClient {
    /// Sends a file as an endpoint's raw body and decodes the JSON answer.
    /// - Throws: ``ParleyError``: `.network` when the server cannot be reached, else the server's error.
    func upload<Response: Decodable>(_ endpoint: Endpoint<Void, Response>, file: URL, contentType: String, token: String,
                                     progress: @escaping @Sendable (Int64) -> Void) async throws -> Response {
        var request = try request(endpoint, token: token)
        request.setValue(contentType, forHTTPHeaderField: "Content-Type")
        request.timeoutInterval = 600
        let (data, response) = try await exchange { try await transport.upload(request, fromFile: file, pinnedKeys: pinnedKeys, progress: progress) }
        guard (200..<300).contains(response.statusCode) else {
            throw ParleyError.server(status: response.statusCode, body: try? ParleyJSON.decode(ErrorBody.self, from: data))
        }
        do {
            return try ParleyJSON.decode(Response.self, from: data)
        } catch {
            throw ParleyError(.protocolViolation, "unexpected answer to \(endpoint.method.rawValue) \(endpoint.path)")
        }
    }

    /// Appends an endpoint's body to a file, from byte `offset` on (a `Range` request when not 0).
    /// - Throws: ``ParleyError``.
    func download(_ endpoint: Endpoint<Void, Void>, to file: URL, from offset: Int64, token: String,
                  progress: @escaping @Sendable (Int64) -> Void) async throws {
        var request = try request(endpoint, token: token)
        request.timeoutInterval = 600
        if offset > 0 { request.setValue("bytes=\(offset)-", forHTTPHeaderField: "Range") }
        let (data, response) = try await exchange { try await transport.download(request, toFile: file, pinnedKeys: pinnedKeys, progress: progress) }
        guard (200..<300).contains(response.statusCode) else {
            throw ParleyError.server(status: response.statusCode, body: try? ParleyJSON.decode(ErrorBody.self, from: data))
        }
        if offset > 0 && response.statusCode != 206 {
            throw ParleyError(.protocolViolation, "the server did not resume the download")
        }
    }

    private func request<Response>(_ endpoint: Endpoint<Void, Response>, token: String) throws -> URLRequest {
        guard endpoint.isComplete, let url = URL(string: endpoint.target, relativeTo: baseURL) else {
            throw ParleyError.invalidInput("\(endpoint) needs its parameters")
        }
        var request = URLRequest(url: url)
        request.httpMethod = endpoint.method.rawValue
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
        return request
    }

    private func exchange(_ body: () async throws -> (Data, HTTPURLResponse)) async throws -> (Data, HTTPURLResponse) {
        do {
            return try await body()
        } catch let error as ParleyError {
            throw error
        } catch {
            throw ParleyError.network("cannot reach \(baseURL.absoluteString): \(error.localizedDescription)")
        }
    }
}
