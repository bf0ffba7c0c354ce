import Foundation

/// How ParleyKit opens its one WebSocket to `/v1/realtime`. ParleyKit ships a URLSession
/// implementation on Apple platforms; `ParleyKitNIO` provides one on SwiftNIO for Linux, the CLI and
/// the tests. Tests can also hand in a fake.
public protocol RealtimeTransport: Sendable {
    /// Opens a WebSocket; returns once the upgrade succeeded.
    /// - Throws: ``ParleyError`` (`isAuthorizationError` when the server refused the token).
    func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel
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
