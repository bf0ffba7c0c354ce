import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// Webhook delivery across a SIGKILL of parleyd: deliveries that were due (failing, being retried,
/// one perhaps in flight) when the process died are delivered after the restart, each taken by the
/// receiver exactly once, in order, with the `webhook-id` they had before.
@Suite(.timeLimit(.minutes(2)), .enabled(if: WebhookReceiver.isAvailable, "make .venv: bash scripts/test.sh prepares it"))
struct WebhookCrashTests {
    @Test func sigkill_whileDeliveriesAreRetried_losesAndDoublesNone() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        try await receiver.fail(next: 1_000_000)

        let executable = try BuiltExecutable.locate("parleyd", overrideVariable: "PARLEYD_PATH")
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("parley-webhook-crash-\(UUID().uuidString)")
        let logDirectory = root.appendingPathComponent("logs")
        try FileManager.default.createDirectory(at: logDirectory, withIntermediateDirectories: true)
        let http = DurabilityHTTP(maxConnections: 4)
        let server = ParleydSupervisor(
            executable: executable, dataDirectory: root.appendingPathComponent("data"), logDirectory: logDirectory, http: http,
            extraArguments: ["--allow-private-outbound", "--admin-token", "crash-operator", "--webhook-first-retry", "0.2"])
        defer {
            server.killNow()
            try? FileManager.default.removeItem(at: root)
        }
        let banner = try await server.start()
        let appID = try #require(banner.appID.flatMap(AppID.init(validating:)))

        var base = try #require(server.baseURL)
        let created: WebhookEndpointWithSecret = try await http.json(
            "POST", base.appendingPathComponent("v1/admin/apps/\(appID)/webhooks"), token: "crash-operator",
            body: try ParleyJSON.encode(CreateWebhookRequest(url: receiver.hookURL, events: [.messageCreated])), expect: 201)
        try await receiver.setSecrets([created.secret])
        let session: VisitorSession = try await http.json(
            "POST", base.appendingPathComponent("v1/visitor/session"),
            body: try ParleyJSON.encode(VisitorSessionRequest(appID: appID, deviceID: "webhook-crash-\(UUID().uuidString)", name: "Eve")))
        let conversation: Conversation = try await http.json(
            "POST", base.appendingPathComponent("v1/conversations"), token: session.token, body: try ParleyJSON.encode(OpenConversationRequest()), expect: 201)
        let count = 12
        for index in 0..<count {
            let _: SendMessageResponse = try await http.json(
                "POST", base.appendingPathComponent("v1/conversations/\(conversation.id)/messages"), token: session.token,
                body: try ParleyJSON.encode(SendMessageRequest(clientMessageID: "m\(index)", text: "message \(index)")), expect: 201)
        }

        // The receiver refuses; the first delivery is retried (0.2 s, 0.4 s, …). Kill while it is.
        let refused = try await receiver.received(count: 3, timeout: 30)
        #expect(refused.count >= 3 && refused.allSatisfy { $0.status == 500 })
        try await server.kill()
        try await receiver.fail(next: 0)

        // Restarted: every message's delivery arrives, once taken, in order, with its first id.
        try await server.start()
        base = try #require(server.baseURL)
        var hooks: [WebhookReceiver.Hook] = []
        for _ in 0..<120 {
            hooks = try await receiver.received(count: refused.count + count, timeout: 1)
            if hooks.filter({ $0.status == 200 }).count >= count { break }
        }
        let taken = hooks.filter { $0.status == 200 }
        #expect(taken.count == count, "each delivery taken once")
        #expect(Set(taken.compactMap(\.id)).count == count)
        #expect(hooks.allSatisfy { $0.verified == [true] })
        let texts = try taken.map { try ParleyJSON.decode(WebhookPayload.self, from: Data(($0.body ?? "").utf8)).data.message?.text ?? "" }
        #expect(texts == (0..<count).map { "message \($0)" })
        #expect(taken.first?.id == refused.first?.id, "the retried delivery keeps its webhook-id across the crash")
    }
}
