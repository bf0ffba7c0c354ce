import Foundation
import HTTPTypes
import Logging
import ParleyKit
import NIOWebSocket
@_spi(WSInternal) import WSCore

/// ParleyKit's realtime transport on SwiftNIO and swift-websocket's frame handling: for Linux, the
/// `parley` command-line tool and the tests (Apple apps use `URLSessionTransport`). Over `wss://`
/// it trusts the system's roots and ``TLSTrust``'s, and checks pinned keys
/// (``ParleyKit/ParleyConfiguration/pinnedKeys``).
///
/// ```swift
/// let transport = NIOWebSocketTransport()
/// let channel = try await transport.connect(to: realtimeURL, headers: ["Authorization": "Bearer \(token)"])
/// for try await text in channel.incoming { … }   // the first message is always `ready`
/// ```
///
/// `connect` returns once the WebSocket upgrade succeeded. It throws a ``ParleyError``:
/// - `isAuthorizationError` when the server refused the upgrade. parleyd refuses an upgrade only
///   because of the token (401 for a missing, bad, expired or revoked token; 426 for the operator's
///   token, which has no realtime identity), and the status is not examined, so every refused
///   upgrade counts as refused credentials. A proxy that answers an upgrade with an
///   error page of its own would be reported the same way.
/// - `isNetworkError` when the server cannot be reached (connection refused, no route, DNS), the
///   upgrade did not finish within ``connectTimeout``, the connection broke during the upgrade, or
///   TLS refused the server (an untrusted certificate, no pinned key in its chain).
/// - an invalid-input error for a URL that is not `ws://` or `wss://`, or a malformed header name.
///
/// Cancelling the task that awaits `connect` abandons the connection and throws `CancellationError`.
public struct NIOWebSocketTransport: RealtimeTransport {
    /// The logger of the frame handler (connection-level debug and trace messages). Default: silent.
    public let logger: Logger
    /// How long `connect` waits for the TCP connection and the upgrade together. Default 30 s.
    public let connectTimeout: Duration
    /// How often the client pings the server, so that a dead connection (a laptop that slept, a
    /// changed network) is noticed: without a pong by the next ping the socket closes and
    /// `incoming` throws a network error. Nil sends no pings (the server's own pings are still
    /// answered). Default 30 s, the server's interval.
    public let pingInterval: Duration?
    /// How long `close()` waits for the server to answer the close handshake before it drops the
    /// connection. Default 5 s.
    public let closeTimeout: Duration
    /// The roots `wss://` trusts. Default ``TLSTrust/system``.
    public let trust: TLSTrust

    /// Creates the transport.
    /// - Parameters:
    ///   - logger: the frame handler's logger; default silent.
    ///   - connectTimeout: the longest `connect` waits for the connection and the upgrade.
    ///   - pingInterval: the client's WebSocket ping interval; nil for none.
    ///   - closeTimeout: the longest `close()` waits for the server's close frame.
    ///   - trust: the roots `wss://` trusts; default the system's.
    public init(
        logger: Logger = Logger(label: "parley.nio", factory: { _ in SwiftLogNoOpLogHandler() }),
        connectTimeout: Duration = .seconds(30),
        pingInterval: Duration? = .seconds(30),
        closeTimeout: Duration = .seconds(5),
        trust: TLSTrust = .system
    ) {
        self.trust = trust
        self.logger = logger
        self.connectTimeout = connectTimeout
        self.pingInterval = pingInterval
        self.closeTimeout = closeTimeout
    }

    /// Opens a WebSocket to `url` with extra request headers (typically `Authorization`) and
    /// returns once the upgrade succeeded.
    /// - Throws: ``ParleyError`` (see the type's documentation), or `CancellationError`.
    public func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel {
        try await connect(to: url, headers: headers, pinnedKeys: [])
    }

    /// Opens a WebSocket to `url` whose server must present a pinned key.
    /// - Throws: ``ParleyError`` (see the type's documentation), or `CancellationError`.
    public func connect(to url: URL, headers: [String: String], pinnedKeys: [PublicKeyPin]) async throws -> any RealtimeChannel {
        guard let scheme = url.scheme?.lowercased(), scheme == "ws" || scheme == "wss" else {
            throw ParleyError.invalidInput("a realtime URL starts with ws:// or wss://, not \(url.absoluteString)")
        }
        try pinnedKeys.requireTLS(url)
        var fields = HTTPFields()
        for (name, value) in headers {
            guard let fieldName = HTTPField.Name(name) else { throw ParleyError.invalidInput("invalid header name \(name)") }
            fields[fieldName] = value
        }
        let connection = WebSocketConnection(
            url: url, headers: fields, tls: scheme == "wss" ? try ClientTLS(trust: trust, pins: pinnedKeys) : nil,
            // parleyd splits its messages into fragments of at most 256 KiB, and a client message
            // is at most 256 KiB: 1 MiB leaves room without letting a broken peer make us buffer much.
            maxFrameSize: 1 << 20,
            autoPing: pingInterval.map { .enabled(timePeriod: $0) } ?? .disabled,
            closeTimeout: closeTimeout, logger: logger)

        let channel = NIOWebSocketChannel(closeTimeout: closeTimeout)
        let upgrade = channel.start(connection)
        let timeout = Task { [connectTimeout] in
            try await Task.sleep(for: connectTimeout)
            channel.abandon(because: ParleyError.network("no WebSocket upgrade from \(Self.endpoint(url)) within \(connectTimeout)"))
        }
        defer { timeout.cancel() }

        // The upgrade stream yields exactly one result; it yields nil only when this task is
        // cancelled while waiting.
        var results = upgrade.makeAsyncIterator()
        guard let result = await results.next() else {
            // The upgrade may have succeeded at the same moment: close() handles every phase.
            await channel.close()
            throw CancellationError()
        }
        switch result {
        case .success:
            return channel
        case .failure(let error):
            // No wait for the connection task: a failure it reported is the last thing it does.
            // After a timeout it has been cancelled, but the upgrade cannot be interrupted while it
            // waits for the answer to its upgrade request, so that task and its socket last until
            // the silent server closes the connection; waiting for it would only delay the error.
            throw Self.connectError(error, url: url, tlsRefusal: channel.verdict.refusal)
        }
    }

    /// `host:port` of a URL, for messages (never the query, which may hold an access token).
    static func endpoint(_ url: URL) -> String {
        let host = url.host ?? "?"
        if let port = url.port { return "\(host):\(port)" }
        return url.scheme?.lowercased() == "wss" ? "\(host):443" : "\(host):80"
    }

    /// The ``ParleyError`` for a failed connection or upgrade.
    static func connectError(_ error: any Error, url: URL, tlsRefusal: String?) -> any Error {
        if let tlsRefusal { return ParleyError.network("cannot connect to \(endpoint(url)): \(tlsRefusal)") }
        switch error {
        case is ParleyError, is CancellationError:
            return error
        case is WebSocketConnection.UpgradeRefused:
            return ParleyError.unauthorized("the server refused the WebSocket upgrade at \(endpoint(url)): the token was not accepted")
        default:
            return ParleyError.network("cannot connect to \(endpoint(url)): \(describe(error))")
        }
    }

    /// A short, readable reason for an error from NIO or the frame handler.
    static func describe(_ error: any Error) -> String {
        let text = String(describing: error)
        // NIOPosix's connection errors are long struct dumps; what people need is the system's
        // reason: "Connection refused (errno: 111)", or DNS's "Name or service not known".
        if let match = text.firstMatch(of: #/([A-Za-z][A-Za-z ]+?)\)? \(errno: (\d+)\)/#) {
            return "\(match.1) (errno \(match.2))"
        }
        if let match = text.firstMatch(of: #/DNS error: .*?: ([^:(]+?) \(error/#) {
            return "cannot resolve the host: \(match.1)"
        }
        return text.count > 200 ? String(text.prefix(200)) + "…" : text
    }
}
