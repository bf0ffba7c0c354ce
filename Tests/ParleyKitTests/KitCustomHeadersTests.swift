import Foundation
import Hummingbird
import ParleyCore
import ParleyKit
import ParleyTestSupport
import Testing

/// An app's own headers go with every HTTP request and the socket's upgrade, and never replace the
/// token (Unblu's custom headers).
@Suite("ParleyKit custom headers")
struct KitCustomHeadersTests {
    /// A transport that records the upgrade's headers and refuses to connect.
    final class RecordingTransport: RealtimeTransport {
        let continuation: AsyncStream<[String: String]>.Continuation
        let connects: AsyncStream<[String: String]>
        init() { (connects, continuation) = AsyncStream.makeStream() }
        func connect(to url: URL, headers: [String: String]) async throws -> any RealtimeChannel {
            continuation.yield(headers)
            throw ParleyError.network("recording only")
        }
    }

    @Test func customHeaders_goWithHTTPAndTheSocket_andTheTokenStaysTheClients() async throws {
        let seen = Locked<[String: String]>([:])
        let gateway = try await LocalHTTPServer.start { router in
            router.post("v1/visitor/session") { request, _ -> Response in
                seen.withLock { headers in
                    for field in request.headers { headers[field.name.canonicalName] = field.value }
                }
                return Response(status: .serviceUnavailable)
            }
        }
        defer { Task { await gateway.stop() } }
        var configuration = ParleyConfiguration(serverURL: gateway.url(""), appID: AppID(rawValue: "app_01KE6SJTQM8N3V5Q2R7H4K9D6W"))
        configuration.storage = .directory(FileManager.default.temporaryDirectory.appendingPathComponent("parley-kit-\(UUID().uuidString)"))
        configuration.customHeaders = ["X-Gateway-Key": "k-123", "Authorization": "Bearer not-the-app's"]
        let client = ParleyClient(configuration: configuration, transport: RecordingTransport(), storage: MemoryStorage())
        try await client.start()
        await #expect(throws: ParleyError.self) { _ = try await client.openConversation(subject: "hi") }
        await client.stop()
        let headers = seen.withLock { $0 }
        #expect(headers["x-gateway-key"] == "k-123")
        #expect(headers["authorization"] == "Bearer not-the-app's", "no visitor token exists yet: the app's header goes as it is")
        #expect(headers["content-type"] == "application/json")

        try await withServer { server in
            var configuration = ParleyConfiguration(serverURL: server.baseURL, appID: server.appID)
            configuration.customHeaders = ["X-Gateway-Key": "k-123", "Authorization": "Bearer not-the-app's"]
            let transport = RecordingTransport()
            let client = ParleyClient(configuration: configuration, transport: transport, storage: MemoryStorage())
            try await client.start()
            var connects = transport.connects.makeAsyncIterator()
            let upgrade = try #require(await connects.next())
            #expect(upgrade["X-Gateway-Key"] == "k-123")
            #expect(upgrade["Authorization"]?.hasPrefix("Bearer pv1.") == true, "the visitor token, not the app's header")
            await client.stop()
        }
    }
}
