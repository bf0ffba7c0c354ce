import Foundation

/// How ParleyKit opens its one WebSocket to `/v1/realtime`. ParleyKit ships a URLSession
/// implementation on Apple platforms; `ParleyKitNIO` provides one on SwiftNIO for Linux, the CLI and
/// the tests. Tests can also hand in a fake.
public protocol RealtimeTransport: Sendable {
    /// Opens a WebSocket; returns once the upgrade succeeded.
    /// - Throws: ``ParleyError`` (`isAuthorizationError` when the server refused the token).
    func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel

    /// Opens a WebSocket whose server must present a pinned key; returns once the upgrade succeeded.
    /// The default implementation connects normally when `pinnedKeys` is empty and otherwise
    /// refuses, so a transport that cannot check pins never connects unchecked.
    /// - Parameters:
    ///   - url: the realtime URL (`wss://` when keys are pinned).
    ///   - headers: extra request headers (typically `Authorization`).
    ///   - pinnedKeys: keys the server's certificate chain must carry one of; empty for none.
    /// - Throws: ``ParleyError``; `.network` when the server's key is not pinned.
    func connect(to url: URL, headers: [String: String], pinnedKeys: [PublicKeyPin]) async throws -> any RealtimeChannel
}

extension RealtimeTransport {
    /// Connects normally without pins; refuses pins (this transport does not check them).
    /// - Parameters:
    ///   - url: the realtime URL.
    ///   - headers: extra request headers.
    ///   - pinnedKeys: must be empty.
    /// - Throws: ``ParleyError`` (invalid input) when keys are pinned.
    public func connect(to url: URL, headers: [String: String], pinnedKeys: [PublicKeyPin]) async throws -> any RealtimeChannel {
        guard pinnedKeys.isEmpty else {
            throw ParleyError.invalidInput("\(type(of: self)) cannot check pinned keys")
        }
        return try await connect(to: url, headers: headers)
    }
}

/// One open WebSocket: text messages in and out.
public protocol RealtimeChannel: Sendable {
    /// The text messages the server sends, in order; the sequence ends when the socket closes
    /// (throwing when it closed abnormally).
    var incoming: AsyncThrowingStream<String, any Error> { get }
    /// Sends one text message.
    func send(_ text: String) async throws
    /// Closes the socket normally.
    func close() async
}
