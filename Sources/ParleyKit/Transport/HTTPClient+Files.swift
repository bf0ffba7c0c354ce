import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Crypto
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

    /// Downloads a file of a conversation to `destination`, resuming from `destination` + `.part`;
    /// the file is moved into place only once complete and its SHA-256 checked.
    /// - Throws: ``ParleyError``; a damaged download is removed and refused.
    func fetch(_ attachment: Attachment, in conversation: ConversationID, to destination: URL, token: String,
               report: @escaping @Sendable (FileProgress) -> Void) async throws {
        let partial = destination.appendingPathExtension("part")
        let offset = Int64((try? FileManager.default.attributesOfItem(atPath: partial.path)[.size] as? NSNumber)??.int64Value ?? 0)
        if offset < attachment.size {
            report(FileProgress(completed: offset, total: attachment.size))
            try await download(.attachments.download(conversation, attachment.id), to: partial, from: offset, token: token) { received in
                report(FileProgress(completed: offset + received, total: attachment.size))
            }
        }
        guard try FileDigest.sha256(of: partial) == attachment.sha256 else {
            try? FileManager.default.removeItem(at: partial)
            throw ParleyError(.protocolViolation, "\(attachment.name) arrived damaged; download it again")
        }
        try? FileManager.default.removeItem(at: destination)
        try FileManager.default.moveItem(at: partial, to: destination)
        report(FileProgress(completed: attachment.size, total: attachment.size))
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

/// The SHA-256 of a file, read in chunks.
enum FileDigest {
    static func sha256(of file: URL) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var hasher = SHA256()
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
        return hasher.finalize().hexString
    }
}
