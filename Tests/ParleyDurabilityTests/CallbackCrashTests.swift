import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// Callback requests across a SIGKILL of parleyd: a confirmed request and an offered one survive
/// with their events stored once each, and the offer's expiry, a timer of the killed process, is
/// armed again from what was stored, so the request goes back to its queue after the restart.
@Suite(.timeLimit(.minutes(2)))
struct CallbackCrashTests {
    static let operatorToken = "callback-crash-operator"

    @Test func sigkill_midWay_keepsEveryRequestsState_andItsDeadlines() async throws {
        let executable = try BuiltExecutable.locate("parleyd", overrideVariable: "PARLEYD_PATH")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-callback-crash-\(UUID().uuidString)")
        let logDirectory = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        let http = DurabilityHTTP(maxConnections: 4)
        let server = ParleydSupervisor(
            executable: executable, dataDirectory: root.appendingPathComponent("data"), logDirectory: logDirectory, http: http,
            extraArguments: ["--admin-token", Self.operatorToken])
        defer {
            server.killNow()
            try? FileManager.default.removeItem(at: root)
        }
        let banner = try await server.start()
        let app = try #require(banner.appID.flatMap(AppID.init(validating:)))
        var base = try #require(server.baseURL)
        func url(_ path: String) -> URL { base.appendingPathComponent(path) }

        let queues: QueueList = try await http.json("GET", url("v1/admin/apps/\(app)/queues"), token: Self.operatorToken)
        let queue = try #require(queues.queues.first)
        var settings = CallbackSettings.standard
        settings.offerSeconds = 10
        let _: CallbackSettings = try await http.json("PUT", url("v1/admin/apps/\(app)/queues/\(queue.id)/callbacks"), token: Self.operatorToken,
                                                      body: try ParleyJSON.encode(settings))
        let email = "callback-crash-\(UUID().uuidString.prefix(8).lowercased())@test.parley"
        _ = try await http.json(
            "POST", url("v1/admin/apps/\(app)/agents"), token: Self.operatorToken,
            body: try ParleyJSON.encode(CreateAgentRequest(name: "Ada", email: email, password: "password-123", role: .agent,
                                                           queueIDs: [queue.id], capacity: 3)),
            expect: 201, as: CreatedAgent.self)
        let agent: AgentSession = try await http.json("POST", url("v1/agent/login"),
                                                      body: try ParleyJSON.encode(AgentLoginRequest(email: email, password: "password-123")))
        func visitor(_ name: String) async throws -> VisitorSession {
            try await http.json("POST", url("v1/visitor/session"),
                                body: try ParleyJSON.encode(VisitorSessionRequest(appID: app, deviceID: "crash-\(UUID().uuidString)", name: name)))
        }
        func request(_ visitor: VisitorSession, phone: String) async throws -> CallbackView {
            try await http.json("POST", url("v1/callbacks"), token: visitor.token,
                                body: try ParleyJSON.encode(RequestCallbackRequest(kind: .callMe, phone: phone)), expect: 201)
        }
        func view(_ id: CallbackID, _ visitor: VisitorSession) async throws -> CallbackView {
            try await http.json("GET", url("v1/callbacks/\(id)"), token: visitor.token)
        }
        func accept(_ view: CallbackView) async throws {
            let (status, body) = try await http.request("POST", url("v1/conversations/\(view.conversation.id)/accept"), token: agent.token, body: Data("{}".utf8))
            guard status == 200 else { throw DurabilityError("accept → \(status): \(String(decoding: body, as: UTF8.self))") }
        }

        let vera = try await visitor("Vera"), otto = try await visitor("Otto")
        let confirmed = try await request(vera, phone: "+4930901820")
        let offered = try await request(otto, phone: "+4930901821")
        try await accept(confirmed)
        let (status, _) = try await http.request("POST", url("v1/callbacks/\(confirmed.callback.id)/actions/confirm"), token: vera.token)
        #expect(status == 200)
        try await accept(offered)
        #expect(try await view(offered.callback.id, otto).callback.status == .offered)

        try await server.kill()
        try await server.start()
        base = try #require(server.baseURL)

        // The confirmed request is where it was, each step stored once.
        let after = try await view(confirmed.callback.id, vera)
        #expect(after.callback.status == .connecting && after.callback.agentID == agent.agent.id)
        let page: EventPage = try await http.json("GET", url("v1/conversations/\(confirmed.conversation.id)/events").appending(queryItems: [.init(name: "after", value: "0")]),
                                                 token: vera.token)
        let actions = page.events.compactMap { event -> CallbackChange.Action? in
            if case .callback(let change) = event.body { change.action } else { nil }
        }
        #expect(actions == [.requested, .offered, .confirmed])
        #expect(page.events.map(\.seq) == Array(1...Int64(page.events.count)))

        // The offer's deadline was a timer of the killed process: the restarted one arms it again
        // from the stored request, and the unconfirmed offer goes back to the queue.
        let deadline = ContinuousClock.now + .seconds(40)
        var requeued = try await view(offered.callback.id, otto)
        while requeued.callback.status == .offered, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(200))
            requeued = try await view(offered.callback.id, otto)
        }
        #expect(requeued.callback.status == .waiting && requeued.conversation.state == .queued)

        // The agent finishes the confirmed one.
        let done: Conversation = try await http.json(
            "POST", url("v1/conversations/\(confirmed.conversation.id)/callback/outcome"), token: agent.token,
            body: try ParleyJSON.encode(CallbackOutcomeRequest(outcome: .done)))
        #expect(done.state == .ended && done.callback?.endReason == .completed)
    }
}
