import Foundation
import ParleyCore
import ParleyStore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// The rate limits through the API, on a manual clock: 429 with `Retry-After` and the JSON error
/// body, nothing changed, and the limit lifts when its time has passed.
@Suite("Rate limits over HTTP and WebSocket")
struct RateLimitRouteTests {
    static func limited(_ clock: ManualClock, _ change: @escaping (inout RateLimits) -> Void) -> (inout ServerConfiguration) -> Void {
        { configuration in
            var limits = RateLimits()
            change(&limits)
            configuration.rateLimits = limits
            configuration.clock = clock
        }
    }

    /// A server with `configure` applied and `proxies` trusted.
    func withProxiedServer<T>(configure: @escaping (inout ServerConfiguration) -> Void, proxies: TrustedProxies,
                       _ body: (TestServer) async throws -> T) async throws -> T {
        try await ParleyTestSupport.withServer(configure: { configuration in
            configure(&configuration)
            configuration.trustedProxies = proxies
        }, body)
    }

    @Test func visitorSessions_perAddress_areLimited_thenLift() async throws {
        let clock = ManualClock()
        try await withServer(configure: Self.limited(clock) { $0.sessionsPerAddress = RateLimit(burst: 3, perMinute: 6) }) { server in
            for index in 0..<3 { _ = try await server.visitor("device-limit-\(index)") }
            let refused = try await server.http.send("POST", "/v1/visitor/session", VisitorSessionRequest(appID: server.appID, deviceID: "device-limit-9"))
            #expect(refused.status == 429)
            #expect(refused.headers["retry-after"] == "10")
            #expect(refused.error?.error.code == "too_many_requests")
            #expect(try await server.store.upsertVisitor(app: server.appID, deviceID: "device-limit-9", profile: .init(), at: clock.now()).createdAt == clock.now(),
                    "the refused session made no visitor")
            clock.advance(by: 10)
            _ = try await server.visitor("device-limit-10")
        }
    }

    static func session(_ server: TestServer, _ device: String, from client: String) async throws -> Int {
        try await server.http.send("POST", "/v1/visitor/session", VisitorSessionRequest(appID: server.appID, deviceID: device),
                                   headers: ["X-Forwarded-For": client]).status
    }

    @Test func trustedProxy_countsEachForwardedClientApart_andAnUntrustedHeaderIsIgnored() async throws {
        let clock = ManualClock()
        let proxies = try TrustedProxies(["127.0.0.1"])
        try await withProxiedServer(configure: Self.limited(clock) { $0.sessionsPerAddress = RateLimit(burst: 1, perMinute: 1) }, proxies: proxies) { (server: TestServer) async throws in
            #expect(try await Self.session(server, "device-proxy-1", from: "203.0.113.1") == 200)
            #expect(try await Self.session(server, "device-proxy-2", from: "203.0.113.2") == 200)
            #expect(try await Self.session(server, "device-proxy-3", from: "203.0.113.1") == 429)
        }
        try await withServer(configure: Self.limited(clock) { $0.sessionsPerAddress = RateLimit(burst: 1, perMinute: 1) }) { server in
            _ = try await server.visitor("device-direct-1")
            let spoofed = try await server.http.send("POST", "/v1/visitor/session", VisitorSessionRequest(appID: server.appID, deviceID: "device-direct-2"),
                                                     headers: ["X-Forwarded-For": "198.51.100.9"])
            #expect(spoofed.status == 429, "without a trusted proxy the header is the client's own claim")
        }
    }

    @Test func messages_perVisitor_areLimitedOverHTTPAndTheSocket_andNothingIsStored() async throws {
        let clock = ManualClock()
        try await withServer(configure: Self.limited(clock) { $0.messagesPerVisitor = RateLimit(burst: 2, perMinute: 2) }) { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            for index in 0..<2 {
                let sent = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages",
                                                      SendMessageRequest(clientMessageID: "m\(index)", text: "hello \(index)"), token: visitor.token)
                #expect(sent.status == 201)
            }
            let refused = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages",
                                                     SendMessageRequest(clientMessageID: "m2", text: "one too many"), token: visitor.token)
            #expect(refused.status == 429 && refused.headers["retry-after"] == "30")

            let socket = try await server.socket(visitor.token)
            try await socket.send(.send(.init(ref: "s1", conversationID: conversation.id, clientMessageID: "m3", text: "over the socket")))
            let error = try await socket.next { if case .error = $0 { true } else { false } }
            guard case .error(let frame) = error else { return }
            #expect(frame.code == "too_many_requests" && frame.ref == "s1")
            await socket.close()

            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events", token: visitor.token, as: EventPage.self)
            #expect(page.events.compactMap(\.message?.text) == ["hello 0", "hello 1"], "refused messages are not stored")

            clock.advance(by: 30)
            let later = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages",
                                                   SendMessageRequest(clientMessageID: "m2", text: "one too many"), token: visitor.token)
            #expect(later.status == 201)
            let agent = try await server.demoAgent()
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
            for index in 0..<4 {
                let reply = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages",
                                                       SendMessageRequest(clientMessageID: "a\(index)", text: "agent \(index)"), token: agent.token)
                #expect(reply.status == 201, "agents are not limited per visitor")
            }
        }
    }

    @Test func wrongPasswords_makeTheNextLoginWait_evenWithTheRightOne() async throws {
        let clock = ManualClock()
        try await withServer(configure: Self.limited(clock) { _ in }) { server in
            func login(_ password: String) async throws -> TestHTTP.Reply {
                try await server.http.send("POST", "/v1/agent/login", AgentLoginRequest(email: server.demo.agent.email, password: password))
            }
            for _ in 0..<5 { #expect(try await login("wrong").status == 401) }
            let waiting = try await login(server.demo.password)
            #expect(waiting.status == 429 && waiting.headers["retry-after"] == "1")
            clock.advance(by: 1)
            #expect(try await login("wrong").status == 401)
            let longer = try await login(server.demo.password)
            #expect(longer.status == 429 && longer.headers["retry-after"] == "2", "each failure doubles the wait")
            clock.advance(by: 2)
            #expect(try await login(server.demo.password).status == 200)
            #expect(try await login("wrong").status == 401, "a success starts the count again")
            #expect(try await login(server.demo.password).status == 200)
        }
    }
}
