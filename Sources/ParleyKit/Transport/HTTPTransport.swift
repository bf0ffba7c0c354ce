import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How ParleyKit sends its HTTP requests. ParleyKit ships ``URLSessionHTTPTransport``;
/// `ParleyKitNIO` provides one on SwiftNIO that can check pinned keys on Linux too.
public protocol HTTPTransport: Sendable {
    /// Sends one request and returns the answer.
    /// - Parameters:
    ///   - request: the request, complete with method, headers, body and timeout.
    ///   - pinnedKeys: keys the server's certificate chain must carry one of (empty: the system's
    ///     trust alone). A transport that cannot check them must throw instead of sending.
    /// - Returns: the response's body and head, whatever its status.
    /// - Throws: when no answer came (the caller reports it as a network error), or a
    ///   ``ParleyError`` of its own (a pin it cannot check, a key that is not pinned).
    func send(_ request: URLRequest, pinnedKeys: [PublicKeyPin]) async throws -> (Data, HTTPURLResponse)

    /// Sends a request whose body is a file, reporting the bytes sent.
    /// - Parameters:
    ///   - request: the request, without a body.
    ///   - file: the body.
    ///   - pinnedKeys: as for ``send(_:pinnedKeys:)``.
    ///   - progress: called with the bytes sent so far.
    /// - Returns: the response's body and head.
    func upload(_ request: URLRequest, fromFile file: URL, pinnedKeys: [PublicKeyPin], progress: @escaping @Sendable (Int64) -> Void) async throws
        -> (Data, HTTPURLResponse)

    /// Receives a response's body into a file (appending to what it holds), reporting the bytes
    /// received; a response that is not a success is returned with its body in memory instead.
    /// - Parameters:
    ///   - request: the request.
    ///   - file: where a success's body goes (appended).
    ///   - pinnedKeys: as for ``send(_:pinnedKeys:)``.
    ///   - progress: called with the bytes received so far.
    /// - Returns: the response's head, and the body of an error answer.
    func download(_ request: URLRequest, toFile file: URL, pinnedKeys: [PublicKeyPin], progress: @escaping @Sendable (Int64) -> Void) async throws
        -> (Data, HTTPURLResponse)
}

extension HTTPTransport {
    /// The file read whole into the request (a transport that cannot stream a file).
    public func upload(_ request: URLRequest, fromFile file: URL, pinnedKeys: [PublicKeyPin], progress: @escaping @Sendable (Int64) -> Void) async throws
        -> (Data, HTTPURLResponse) {
        var request = request
        request.httpBody = try Data(contentsOf: file)
        let answer = try await send(request, pinnedKeys: pinnedKeys)
        progress(Int64(request.httpBody?.count ?? 0))
        return answer
    }

    /// The answer received whole, then written (a transport that cannot stream to a file).
    public func download(_ request: URLRequest, toFile file: URL, pinnedKeys: [PublicKeyPin], progress: @escaping @Sendable (Int64) -> Void) async throws
        -> (Data, HTTPURLResponse) {
        let (data, response) = try await send(request, pinnedKeys: pinnedKeys)
        guard (200..<300).contains(response.statusCode) else { return (data, response) }
        try FileAppender.append(data, to: file)
        progress(Int64(data.count))
        return (Data(), response)
    }
}

/// Appends bytes to a file, creating it (0600) when missing, and syncs it.
enum FileAppender {
    static func append(_ data: Data, to file: URL) throws {
        if !FileManager.default.fileExists(atPath: file.path) {
            guard FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]) else {
                throw ParleyError.storage("cannot create \(file.lastPathComponent)")
            }
        }
        let handle = try FileHandle(forWritingTo: file)
        defer { try? handle.close() }
        try handle.seekToEnd()
        try handle.write(contentsOf: data)
        try handle.synchronize()
    }
}

/// ParleyKit's HTTP on URLSession: data tasks work on every platform.
///
/// Pinned keys are checked on Apple platforms, by a delegate on each task. On Linux,
/// FoundationNetworking offers no way to see the server's certificates, so a request with pinned
/// keys is refused rather than sent unchecked: use `NIOHTTPTransport` from ParleyKitNIO there.
public struct URLSessionHTTPTransport: HTTPTransport {
    let session: URLSession
    /// True when the app handed in its session: its delegate, if it has one, answers the server's
    /// trust challenge before any task delegate could.
    let isAppSession: Bool

    /// A transport over a session.
    /// - Parameter session: the session requests go through. Default nil: one of the transport's
    ///   own, ephemeral (no shared cookies or cache), never `URLSession.shared`.
    public init(session: URLSession? = nil) {
        self.session = session ?? URLSession(configuration: .ephemeral)
        isAppSession = session != nil
    }

    public func send(_ request: URLRequest, pinnedKeys: [PublicKeyPin]) async throws -> (Data, HTTPURLResponse) {
        let data: Data, response: URLResponse
        if pinnedKeys.isEmpty {
            (data, response) = try await session.dataIgnoringCancellation(for: request)
        } else {
            try pinnedKeys.requireTLS(request.url)
            #if canImport(Darwin)
            guard !isAppSession || session.delegate == nil else {
                throw ParleyError.invalidInput("pinned keys cannot be checked on a URLSession whose delegate answers trust challenges; check them there with PublicKeyPin's admits(chain:), or leave the session to ParleyKit")
            }
            (data, response) = try await session.data(for: request, delegate: PinningTaskDelegate(pins: pinnedKeys))
            #else
            throw ParleyError.invalidInput("URLSession cannot check pinned keys on this platform: use NIOHTTPTransport from ParleyKitNIO")
            #endif
        }
        guard let http = response as? HTTPURLResponse else { throw ParleyError.network("no HTTP answer") }
        return (data, http)
    }
}

extension Collection<PublicKeyPin> {
    /// Pins mean nothing without TLS: a request to an `http://` or `ws://` URL with pins is refused.
    /// - Parameter url: where the request goes.
    /// - Throws: ``ParleyError`` (invalid input) when the URL is not `https://` or `wss://`.
    public func requireTLS(_ url: URL?) throws {
        guard isEmpty || ["https", "wss"].contains(url?.scheme?.lowercased() ?? "") else {
            throw ParleyError.invalidInput("pinned keys need an https:// server, not \(url?.scheme ?? "no scheme")://")
        }
    }
}
