#if canImport(Darwin)
import Foundation

/// The realtime transport on Apple platforms: `URLSessionWebSocketTask`, so an app never links SwiftNIO.
public struct URLSessionTransport: RealtimeTransport {
    let session: URLSession
    /// True when the app handed in its session (see ``URLSessionHTTPTransport``).
    let isAppSession: Bool

    /// Creates the transport over a URLSession.
    /// - Parameter session: default nil: one of the transport's own, ephemeral, never `.shared`.
    public init(session: URLSession? = nil) {
        self.session = session ?? URLSession(configuration: .ephemeral)
        isAppSession = session != nil
    }

    public func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel {
        try await connect(to: url, headers: headers, pinnedKeys: [])
    }

    public func connect(to url: URL, headers: [String: String], pinnedKeys: [PublicKeyPin]) async throws -> any RealtimeChannel {
        try pinnedKeys.requireTLS(url)
        if !pinnedKeys.isEmpty && isAppSession && session.delegate != nil {
            throw ParleyError.invalidInput("pinned keys cannot be checked on a URLSession whose delegate answers trust challenges")
        }
        var request = URLRequest(url: url)
        for (name, value) in headers { request.setValue(value, forHTTPHeaderField: name) }
        let task = session.webSocketTask(with: request)
        if !pinnedKeys.isEmpty { task.delegate = PinningTaskDelegate(pins: pinnedKeys) }
        task.maximumMessageSize = 4 << 20
        task.resume()
        let channel = URLSessionChannel(task: task)
        // The first receive proves the upgrade worked (the server always sends `ready` first).
        return channel
    }
}

final class URLSessionChannel: RealtimeChannel, @unchecked Sendable {
    // @unchecked: URLSessionWebSocketTask is thread-safe; the stream is created once in init.
    let task: URLSessionWebSocketTask
    let incoming: AsyncThrowingStream<String, any Error>

    init(task: URLSessionWebSocketTask) {
        self.task = task
        incoming = AsyncThrowingStream { continuation in
            let reader = Task {
                do {
                    while true {
                        switch try await task.receive() {
                        case .string(let text): continuation.yield(text)
                        case .data(let data): continuation.yield(String(decoding: data, as: UTF8.self))
                        @unknown default: break
                        }
                    }
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in reader.cancel() }
        }
    }

    func send(_ text: String) async throws {
        try await task.send(.string(text))
    }

    func close() async {
        task.cancel(with: .normalClosure, reason: nil)
    }
}
#endif
