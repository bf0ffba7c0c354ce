import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport

/// Makes SDK clients against a test server, each with its own storage folder.
struct KitHarness {
    let server: TestServer

    /// Fast reconnects for tests (the real policy is documented on ReconnectPolicy.standard).
    static let fastPolicy = ReconnectPolicy(initialDelay: .milliseconds(50), multiplier: 2, maximumDelay: .milliseconds(400), jitter: 0.1)

    func storageDirectory() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("parley-kit-\(UUID().uuidString)")
    }

    /// A visitor client; `store` replaces the ``FileStorage`` in `storage` (or in a fresh folder),
    /// `http` URLSession's HTTP.
    func visitor(name: String = "Visitor", storage: URL? = nil, store: (any ParleyStorage)? = nil, appearance: Appearance = Appearance(),
                 http: (any HTTPTransport)? = nil) -> ParleyClient {
        var configuration = ParleyConfiguration(serverURL: server.baseURL, appID: server.appID)
        configuration.userName = name
        configuration.appearance = appearance
        configuration.storage = .directory(storage ?? storageDirectory())
        configuration.reconnectPolicy = Self.fastPolicy
        configuration.httpTransport = http
        return ParleyClient(configuration: configuration, transport: NIOWebSocketTransport(), storage: store)
    }

    /// A logged-in, online agent of the demo queue, returned once connected: routing counts an
    /// agent only while a socket of theirs is registered, and the server says `ready` after that.
    func onlineAgent(name: String = "Agent", capacity: Int = 3) async throws -> AgentClient {
        let session = try await server.agent(name: name, capacity: capacity)
        let client = AgentClient(serverURL: server.baseURL, transport: NIOWebSocketTransport(), reconnectPolicy: Self.fastPolicy)
        let events = await client.events()
        try await client.login(email: session.agent.email, password: "password-123")
        try await client.setAvailability(.online)
        _ = try await first(events) { if case .connection(.connected) = $0 { true } else { false } }
        return client
    }
}

/// Waits for the first element of a stream that matches, or fails after `timeout`.
func first<Element: Sendable>(
    _ stream: AsyncStream<Element>, timeout: Duration = .seconds(15), where matches: @escaping @Sendable (Element) -> Bool
) async throws -> Element {
    try await withThrowingTaskGroup(of: Element?.self) { group in
        group.addTask {
            for await element in stream where matches(element) { return element }
            return nil
        }
        group.addTask {
            try await WaitLimit.sleep(through: timeout)
            return nil
        }
        let result = try await group.next()!
        group.cancelAll()
        guard let result else { throw TestFailure("nothing matching arrived within \(TestPatience.scaled(timeout))") }
        return result
    }
}
