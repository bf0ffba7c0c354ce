import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import NIOCore
import NIOHTTP1
import NIOPosix
import ParleyKit

/// ParleyKit's HTTP on SwiftNIO: for Linux apps and tools that pin the server's keys
/// (``ParleyKit/ParleyConfiguration/pinnedKeys``), which URLSession cannot check there.
///
/// ```swift
/// var configuration = ParleyConfiguration(serverURL: server, appID: app)
/// configuration.pinnedKeys = [try PublicKeyPin(base64: "…"), try PublicKeyPin(base64: "…backup…")]
/// configuration.httpTransport = NIOHTTPTransport()
/// let client = ParleyClient(configuration: configuration, transport: NIOWebSocketTransport())
/// ```
///
/// Each request opens its own connection (HTTP/1.1, `Connection: close`): ParleyKit's HTTP calls
/// are few (a session, a conversation, a page of history) next to the realtime socket, which
/// carries the traffic. The request's `timeoutInterval` bounds the whole exchange.
public struct NIOHTTPTransport: HTTPTransport {
    /// The roots `https://` trusts. Default ``TLSTrust/system``.
    public let trust: TLSTrust
    /// The largest response body accepted; a larger one fails the request. Default 32 MiB.
    public let maxResponseBytes: Int

    /// Creates the transport.
    /// - Parameters:
    ///   - trust: the roots `https://` trusts; default the system's.
    ///   - maxResponseBytes: the largest response body accepted.
    public init(trust: TLSTrust = .system, maxResponseBytes: Int = 32 << 20) {
        self.trust = trust
        self.maxResponseBytes = maxResponseBytes
    }

    public func send(_ request: URLRequest, pinnedKeys: [PublicKeyPin]) async throws -> (Data, HTTPURLResponse) {
        try await exchange(request, body: .data(request.httpBody ?? Data()), sink: .memory, pinnedKeys: pinnedKeys)
    }

    /// Streams the file as the body, a chunk at a time (a large file never sits in memory).
    public func upload(_ request: URLRequest, fromFile file: URL, pinnedKeys: [PublicKeyPin], progress: @escaping @Sendable (Int64) -> Void) async throws
        -> (Data, HTTPURLResponse) {
        try await exchange(request, body: .file(file, progress), sink: .memory, pinnedKeys: pinnedKeys)
    }

    /// Streams a success's body into the file, a chunk at a time.
    public func download(_ request: URLRequest, toFile file: URL, pinnedKeys: [PublicKeyPin], progress: @escaping @Sendable (Int64) -> Void) async throws
        -> (Data, HTTPURLResponse) {
        try await exchange(request, body: .data(Data()), sink: .file(file, progress), pinnedKeys: pinnedKeys)
    }

    private func exchange(_ request: URLRequest, body: HTTPExchange.Body, sink: HTTPExchange.Sink, pinnedKeys: [PublicKeyPin]) async throws
        -> (Data, HTTPURLResponse) {
        guard let url = request.url, let scheme = url.scheme?.lowercased(), scheme == "http" || scheme == "https",
              let host = url.host, !host.isEmpty else {
            throw ParleyError.invalidInput("not an http:// or https:// URL: \(request.url?.absoluteString ?? "none")")
        }
        try pinnedKeys.requireTLS(url)
        let isTLS = scheme == "https"
        let tls = isTLS ? try ClientTLS(trust: trust, pins: pinnedKeys) : nil
        let verdict = TLSVerdict()
        let exchange = HTTPExchange(url: url, host: host, port: url.port ?? (isTLS ? 443 : 80), request: request, body: body, sink: sink,
                                    maxResponseBytes: maxResponseBytes)
        let timeout = request.timeoutInterval > 0 ? request.timeoutInterval : 60
        do {
            return try await withThrowingTaskGroup(of: (Data, HTTPURLResponse).self) { group in
                group.addTask { try await exchange.run(tls: tls, verdict: verdict) }
                group.addTask {
                    try await Task.sleep(for: .seconds(timeout))
                    throw ParleyError.network("no answer from \(exchange.endpoint) within \(Int(timeout)) s")
                }
                defer { group.cancelAll() }
                return try await group.next()!
            }
        } catch let error as ParleyError {
            throw error
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            if let refusal = verdict.refusal { throw ParleyError.network("cannot connect to \(exchange.endpoint): \(refusal)") }
            throw ParleyError.network("cannot reach \(exchange.endpoint): \(NIOWebSocketTransport.describe(error))")
        }
    }
}

/// One request and its response on a connection of its own.
struct HTTPExchange: Sendable {
    /// Where the request's body comes from.
    enum Body: Sendable {
        case data(Data)
        /// Read in chunks, reporting the bytes sent.
        case file(URL, @Sendable (Int64) -> Void)
    }

    /// Where a success's body goes (an error's always comes back in memory).
    enum Sink: Sendable {
        case memory
        /// Appended in chunks, reporting the bytes received.
        case file(URL, @Sendable (Int64) -> Void)
    }

    static let chunkSize = 256 << 10

    let url: URL
    let host: String
    let port: Int
    let request: URLRequest
    let body: Body
    let sink: Sink
    let maxResponseBytes: Int

    var endpoint: String { "\(host):\(port)" }

    func run(tls: ClientTLS?, verdict: TLSVerdict) async throws -> (Data, HTTPURLResponse) {
        let channel = try await ClientBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .connect(host: host, port: port) { [host] channel in
                channel.eventLoop.makeCompletedFuture {
                    if let tls { try channel.pipeline.syncOperations.addHandler(try tls.handler(host: host, verdict: verdict)) }
                    try channel.pipeline.syncOperations.addHTTPClientHandlers()
                    return try NIOAsyncChannel<HTTPClientResponsePart, HTTPClientRequestPart>(wrappingChannelSynchronously: channel)
                }
            }
        return try await channel.executeThenClose { inbound, outbound in
            switch body {
            case .data(let data):
                try await outbound.write(.head(head(bodyLength: Int64(data.count))))
                if !data.isEmpty { try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: data)))) }
            case .file(let file, let progress):
                let handle = try FileHandle(forReadingFrom: file)
                defer { try? handle.close() }
                let size = Int64(try handle.seekToEnd())
                try handle.seek(toOffset: 0)
                try await outbound.write(.head(head(bodyLength: size)))
                var sent: Int64 = 0
                while let chunk = try handle.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                    try Task.checkCancellation()
                    try await outbound.write(.body(.byteBuffer(ByteBuffer(bytes: chunk))))
                    sent += Int64(chunk.count)
                    progress(sent)
                }
            }
            try await outbound.write(.end(nil))

            var responseHead: HTTPResponseHead?
            var received = ByteBuffer()
            var written: Int64 = 0
            var output: FileHandle?
            defer { try? output?.close() }
            for try await part in inbound {
                switch part {
                case .head(let head):
                    responseHead = head
                    if case .file(let file, _) = sink, (200..<300).contains(head.status.code) {
                        if !FileManager.default.fileExists(atPath: file.path) {
                            _ = FileManager.default.createFile(atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600])
                        }
                        output = try FileHandle(forWritingTo: file)
                        try output?.seekToEnd()
                    }
                case .body(var chunk):
                    if let output, case .file(_, let progress) = sink {
                        try output.write(contentsOf: Data(chunk.readableBytesView))
                        written += Int64(chunk.readableBytes)
                        progress(written)
                        continue
                    }
                    guard received.readableBytes + chunk.readableBytes <= maxResponseBytes else {
                        throw ParleyError.network("the answer from \(endpoint) is larger than \(maxResponseBytes) bytes")
                    }
                    received.writeBuffer(&chunk)
                case .end:
                    try output?.synchronize()
                    guard let responseHead else { throw ParleyError.network("no HTTP answer from \(endpoint)") }
                    return (Data(received.readableBytesView), try response(responseHead))
                }
            }
            throw ParleyError.network("the connection to \(endpoint) closed before the answer was complete")
        }
    }

    private func head(bodyLength: Int64) -> HTTPRequestHead {
        var headers = HTTPHeaders()
        let hostLiteral = host.contains(":") ? "[\(host)]" : host
        let defaultPort = url.scheme?.lowercased() == "https" ? 443 : 80
        headers.add(name: "Host", value: port == defaultPort ? hostLiteral : "\(hostLiteral):\(port)")
        for (name, value) in request.allHTTPHeaderFields ?? [:] where name.lowercased() != "host" {
            headers.add(name: name, value: value)
        }
        headers.replaceOrAdd(name: "Content-Length", value: String(bodyLength))
        headers.replaceOrAdd(name: "Connection", value: "close")
        var target = url.path.isEmpty ? "/" : url.path
        if let query = url.query { target += "?\(query)" }
        return HTTPRequestHead(version: .http1_1, method: HTTPMethod(rawValue: request.httpMethod ?? "GET"), uri: target, headers: headers)
    }

    private func response(_ head: HTTPResponseHead) throws -> HTTPURLResponse {
        var fields: [String: String] = [:]
        for (name, value) in head.headers {
            fields[name] = fields[name].map { "\($0), \(value)" } ?? value
        }
        guard let response = HTTPURLResponse(url: url, statusCode: Int(head.status.code), httpVersion: "HTTP/1.1", headerFields: fields) else {
            throw ParleyError.network("an unreadable answer from \(endpoint)")
        }
        return response
    }
}
