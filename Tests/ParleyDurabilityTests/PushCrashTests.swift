import Foundation
import ParleyCore
import ParleyKit
import ParleyTestSupport
import Testing

/// Push delivery across a SIGKILL of parleyd: pushes that were due (the provider down, each being
/// retried, one perhaps in flight) when the process died reach the provider after the restart,
/// each accepted exactly once, in order per device, with the `apns-id` they had before.
@Suite(.timeLimit(.minutes(2)), .enabled(if: PushProviderFake.isAvailable, "make .venv: bash scripts/test.sh prepares it"))
struct PushCrashTests {
    static let operatorToken = "push-crash-operator"

    @Test func sigkill_whileTheProviderIsDown_losesAndDoublesNoPush() async throws {
        let fake = try await PushProviderFake.start()
        defer { fake.stop() }
        try await fake.setMode(down: true)

        let executable = try BuiltExecutable.locate("parleyd", overrideVariable: "PARLEYD_PATH")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-push-crash-\(UUID().uuidString)")
        let logDirectory = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        let http = DurabilityHTTP(maxConnections: 4)
        let server = ParleydSupervisor(
            executable: executable, dataDirectory: root.appendingPathComponent("data"), logDirectory: logDirectory, http: http,
            extraArguments: ["--allow-private-outbound", "--admin-token", Self.operatorToken, "--push-delay", "0", "--push-first-retry", "0.2",
                             "--apns-url", fake.tlsURL, "--apns-sandbox-url", fake.tlsURL, "--fcm-url", fake.tlsURL, "--outbound-ca-file", fake.caFile])
        defer {
            server.killNow()
            try? FileManager.default.removeItem(at: root)
        }
        let banner = try await server.start()
        let app = try #require(banner.appID.flatMap(AppID.init(validating:)))
        let base = try #require(server.baseURL)
        func url(_ path: String) -> URL { base.appendingPathComponent(path) }

        let _: PushSettings = try await http.json(
            "PUT", url("v1/admin/apps/\(app)/push/apns"), token: Self.operatorToken,
            body: try ParleyJSON.encode(APNsCredentialsRequest(teamID: fake.apnsTeamID, keyID: fake.apnsKeyID, privateKey: fake.apnsKeyPEM,
                                                               topic: "com.example.parley")))
        let queues: QueueList = try await http.json("GET", url("v1/admin/apps/\(app)/queues"), token: Self.operatorToken)
        let email = "push-crash-\(UUID().uuidString.prefix(8).lowercased())@test.parley"
        _ = try await http.json(
            "POST", url("v1/admin/apps/\(app)/agents"), token: Self.operatorToken,
            body: try ParleyJSON.encode(CreateAgentRequest(name: "Grace", email: email, password: "password-123", role: .agent,
                                                           queueIDs: queues.queues.map(\.id), capacity: 3)),
            expect: 201, as: CreatedAgent.self)
        let agent: AgentSession = try await http.json("POST", url("v1/agent/login"),
                                                      body: try ParleyJSON.encode(AgentLoginRequest(email: email, password: "password-123")))
        let device = "push-crash-\(UUID().uuidString)"
        let visitor: VisitorSession = try await http.json(
            "POST", url("v1/visitor/session"), body: try ParleyJSON.encode(VisitorSessionRequest(appID: app, deviceID: device, name: "Vera")))
        let token = String(repeating: "c0", count: 32)
        let _: PushDevice = try await http.json("PUT", url("v1/push/devices/\(device)"), token: visitor.token,
                                                body: try ParleyJSON.encode(PushDeviceRequest(provider: .apns, token: token)))
        let conversation: Conversation = try await http.json(
            "POST", url("v1/conversations"), token: visitor.token, body: try ParleyJSON.encode(OpenConversationRequest()), expect: 201)
        let (accepted, _) = try await http.request("POST", url("v1/conversations/\(conversation.id)/accept"), token: agent.token, body: Data("{}".utf8))
        #expect(accepted == 200)
        let count = 8
        for index in 0..<count {
            let _: SendMessageResponse = try await http.json(
                "POST", url("v1/conversations/\(conversation.id)/messages"), token: agent.token,
                body: try ParleyJSON.encode(SendMessageRequest(clientMessageID: "m\(index)", text: "reply \(index)")), expect: 201)
        }

        // The provider refuses; the first push is retried (0.2 s, 0.4 s, …). Kill while it is.
        let refused = try await fake.requests(count: 3, provider: "apns", timeout: 30)
        #expect(refused.allSatisfy { $0.status == 503 })
        try await server.kill()
        try await fake.setMode(down: false)

        // Restarted: every reply's push is accepted once, in order, the first with its first id.
        try await server.start()
        var all: [PushProviderFake.Request] = []
        for _ in 0..<120 {
            all = try await fake.requests(provider: "apns")
            if all.filter({ $0.status == 200 }).count >= count { break }
            _ = try? await fake.requests(count: all.count + 1, provider: "apns", timeout: 1)
        }
        let accepted200 = all.filter { $0.status == 200 }
        #expect(accepted200.count == count, "each push accepted once")
        #expect(Set(accepted200.compactMap { $0.headers["apns-id"] }).count == count)
        let bodies = try accepted200.map { request -> String in
            let json = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
            return try ParleyPush.decryptNotification(json, keys: nil).body ?? ""
        }
        #expect(bodies == (0..<count).map { "reply \($0)" })
        #expect(accepted200.first?.headers["apns-id"] == refused.first?.headers["apns-id"], "the retried push keeps its id across the crash")
    }
}
