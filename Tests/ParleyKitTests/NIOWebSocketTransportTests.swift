// NIOWebSocketTransport against the real server in-process.
import Foundation
#if canImport(Darwin)
import Darwin
#else
import Glibc
#endif
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyTestSupport
import Testing

@Suite(.timeLimit(.minutes(1)))
struct NIOWebSocketTransportTests {
    // Generous timeouts: a slow machine (a sanitizer build, a loaded CI) must not fail a test.
    let transport = NIOWebSocketTransport(connectTimeout: .seconds(20), closeTimeout: .seconds(5))

    static func bearer(_ token: String) -> [String: String] { ["Authorization": "Bearer \(token)"] }

    /// Expects `body` to throw a ``ParleyError`` that passes `test`.
    static func expectParleyError(_ body: () async throws -> Void, _ test: (ParleyError) -> Bool, sourceLocation: SourceLocation = #_sourceLocation) async {
        do {
            try await body()
            Issue.record("no error", sourceLocation: sourceLocation)
        } catch let error as ParleyError {
            #expect(test(error), "\(error.message)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("not a ParleyError: \(error)", sourceLocation: sourceLocation)
        }
    }

    @Test func connect_firstMessageIsReady_pingAnswered_closeFinishesTheStreamNormally() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let channel = try await transport.connect(to: URL(string: server.realtimeURL)!, headers: Self.bearer(session.token))
            var messages = channel.incoming.makeAsyncIterator()
            let ready = try #require(try await messages.next())
            #expect(ready.contains(#""type":"ready""#))

            try await channel.send(#"{"ref":"p1","type":"ping"}"#)
            #expect(try await messages.next() == #"{"ref":"p1","type":"pong"}"#)

            await channel.close()
            #expect(try await messages.next() == nil)  // finished, not thrown
            await Self.expectParleyError({ try await channel.send(#"{"type":"ping"}"#) }, \.isNetworkError)
            await channel.close()  // idempotent
        }
    }

    @Test func largeMessages_travelBothWays() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let channel = try await transport.connect(to: URL(string: server.realtimeURL)!, headers: Self.bearer(session.token))
            var messages = channel.incoming.makeAsyncIterator()
            _ = try await messages.next()  // ready
            let ref = String(repeating: "x", count: 200_000)
            try await channel.send(#"{"ref":""# + ref + #"","type":"ping"}"#)
            let pong = try #require(try await messages.next())
            #expect(pong.contains(ref))
            await channel.close()
        }
    }

    @Test func refusedUpgrade_isAnAuthorizationError() async throws {
        try await withServer { server in
            let url = URL(string: server.realtimeURL)!
            await Self.expectParleyError({ _ = try await transport.connect(to: url, headers: Self.bearer("pv1.forged.token")) }, \.isAuthorizationError)
            await Self.expectParleyError({ _ = try await transport.connect(to: url, headers: [:]) }, \.isAuthorizationError)
            // The operator token gets 426: refused as well, and told the same way.
            await Self.expectParleyError({ _ = try await transport.connect(to: url, headers: Self.bearer(server.adminToken)) }, \.isAuthorizationError)
        }
    }

    @Test func nobodyListening_isANetworkError() async throws {
        let port = try await withServer { server in server.port }  // stopped: its port is free now
        await Self.expectParleyError(
            { _ = try await transport.connect(to: URL(string: "ws://127.0.0.1:\(port)/v1/realtime")!, headers: [:]) }, \.isNetworkError)
    }

    @Test func serverClosesWith1008_streamThrowsANetworkError() async throws {
        try await withServer { server in
            let agent = try await server.demoAgent()
            let channel = try await transport.connect(to: URL(string: server.realtimeURL)!, headers: Self.bearer(agent.token))
            var messages = channel.incoming.makeAsyncIterator()
            _ = try await messages.next()  // ready
            _ = try await server.http.request("POST", "/v1/agent/logout", token: agent.token)
            var received: [String] = []
            do {
                while let text = try await messages.next() { received.append(text) }
                Issue.record("the stream finished without an error")
            } catch let error as ParleyError {
                #expect(error.isNetworkError)
                #expect(error.message.contains("1008"))
            }
            // (Other frames, such as the team's changes, may come first.)
            #expect(received.contains { $0.contains(#""code":"unauthorized""#) })
            await Self.expectParleyError({ try await channel.send(#"{"type":"ping"}"#) }, \.isNetworkError)
            await channel.close()
        }
    }

    @Test func serverShutsDown_streamFinishesNormally() async throws {
        let server = try await TestServer.start()
        let session = try await server.visitor()
        let channel = try await transport.connect(to: URL(string: server.realtimeURL)!, headers: Self.bearer(session.token))
        var messages = channel.incoming.makeAsyncIterator()
        _ = try await messages.next()  // ready
        await server.stop()
        // A graceful shutdown closes with 1000 (docs/protocol.md): a normal end, not an error.
        while try await messages.next() != nil {}
        await channel.close()
    }

    @Test func consumerCancelled_closesTheSocket() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let channel = try await transport.connect(to: URL(string: server.realtimeURL)!, headers: Self.bearer(session.token))
            let consumer = Task { for try await _ in channel.incoming {} }
            try await Task.sleep(for: .milliseconds(200))
            consumer.cancel()
            _ = await consumer.result
            // The close runs in the background; the channel refuses sends once it has begun.
            for _ in 0..<50 {
                if (try? await channel.send(#"{"type":"ping"}"#)) == nil { break }
                try await Task.sleep(for: .milliseconds(20))
            }
            await Self.expectParleyError({ try await channel.send(#"{"type":"ping"}"#) }, \.isNetworkError)
        }
    }

    @Test func silentServer_connectTimesOutWithANetworkError() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        // A server that accepts and never answers: connect gives up (the suite's time limit would
        // catch a hang) with a network error.
        let impatient = NIOWebSocketTransport(connectTimeout: .seconds(1), closeTimeout: .seconds(1))
        await Self.expectParleyError(
            { _ = try await impatient.connect(to: URL(string: "ws://127.0.0.1:\(listener.port)/v1/realtime")!, headers: [:]) }, \.isNetworkError)
    }

    @Test func connectCancelled_throwsCancellationError() async throws {
        let listener = try SilentListener()
        defer { listener.close() }
        let task = Task {
            try await NIOWebSocketTransport().connect(to: URL(string: "ws://127.0.0.1:\(listener.port)/v1/realtime")!, headers: [:])
        }
        try await Task.sleep(for: .milliseconds(200))
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
    }

    @Test func notAWebSocketURL_isInvalidInput() async {
        await Self.expectParleyError(
            { _ = try await transport.connect(to: URL(string: "http://127.0.0.1:1/v1/realtime")!, headers: [:]) },
            { !$0.isNetworkError && !$0.isAuthorizationError && $0.isFatal })
    }
}

/// A TCP socket on 127.0.0.1 that listens and never accepts: the kernel completes connections, and
/// nobody ever answers the upgrade request.
final class SilentListener: Sendable {
    let descriptor: Int32
    let port: Int

    init() throws {
        #if canImport(Darwin)
        let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #else
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #endif
        guard descriptor >= 0 else { throw TestFailure("socket() failed") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0, listen(descriptor, 16) == 0 else { throw TestFailure("bind/listen failed") }
        let named = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        guard named == 0 else { throw TestFailure("getsockname failed") }
        self.descriptor = descriptor
        self.port = Int(UInt16(bigEndian: address.sin_port))
    }

    func close() {
        #if canImport(Darwin)
        _ = Darwin.close(descriptor)
        #else
        _ = Glibc.close(descriptor)
        #endif
    }
}
