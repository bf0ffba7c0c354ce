import Foundation
import ParleyCore
import ParleyKit
@testable import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// Push end to end: a real server (SQLite, and PostgreSQL when `PARLEY_TEST_DATABASE_URL` is set)
/// sending to a local fake of APNs and FCM (`Tests/Push/fake_providers.py`: HTTP/2 over TLS, checks
/// the ES256 provider token, the RS256 OAuth assertion and the payloads, and records every request).
/// Retries run on the server's manual clock; the tests await the fake's records. Serialized: each
/// PostgreSQL case holds a server's pool (and the two-node case two), which the rest of the suite
/// running at once shares with every other suite.
@Suite(.serialized, .timeLimit(.minutes(3)), .enabled(if: PushProviderFake.isAvailable, "make .venv: bash scripts/test.sh prepares it"))
struct PushDeliveryTests {
    static let topic = "com.example.parley"

    /// A server on `store` that sends pushes to `fake` on `clock`: no delay unless `configure`
    /// sets one, retries 1 s doubling to 4 s, no jitter.
    func withPushServer(
        _ store: TestStore, fake: PushProviderFake, clock: ManualClock, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer) async throws -> Void
    ) async throws {
        let url = try #require(URL(string: fake.tlsURL))
        try await withServer(on: store, configure: {
            $0.clock = clock
            $0.outboundTrustRootsFile = fake.caFile
            $0.push.isDeliveryEnabled = true
            $0.push.delay = 0
            $0.push.pollInterval = 1
            $0.push.apnsProductionURL = url
            $0.push.apnsSandboxURL = url
            $0.push.fcmURL = url
            $0.push.backoff.initialDelay = 1
            $0.push.backoff.maximumDelay = 4
            $0.push.backoff.retryDuration = 600
            $0.push.random = { 0 }
            configure(&$0)
        }, body)
    }

    /// A fresh provider fake and a server on `store` sending to it, with its manual clock.
    func withPushFake(
        _ store: TestStore, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer, PushProviderFake, ManualClock) async throws -> Void
    ) async throws {
        let fake = try await PushProviderFake.start()
        defer { fake.stop() }
        let clock = ManualClock(start: Date())
        try await withPushServer(store, fake: fake, clock: clock, configure: configure) { server in
            try await setUpProviders(server, fake: fake)
            try await body(server, fake, clock)
        }
    }

    func push(_ server: TestServer) -> String { "/v1/admin/apps/\(server.appID)/push" }

    /// Sets up both providers with the fake's keys, as an admin would.
    func setUpProviders(_ server: TestServer, fake: PushProviderFake) async throws {
        let apns = APNsCredentialsRequest(teamID: fake.apnsTeamID, keyID: fake.apnsKeyID, privateKey: fake.apnsKeyPEM, topic: Self.topic)
        #expect(try await server.http.send("PUT", "\(push(server))/apns", apns, token: server.adminToken).status == 200)
        let account = try ParleyJSON.decode(FCMServiceAccount.self, from: Data(fake.serviceAccountJSON.utf8))
        let settings = try await server.http.send("PUT", "\(push(server))/fcm", FCMCredentialsRequest(serviceAccount: account), token: server.adminToken)
        #expect(settings.status == 200)
    }

    /// A visitor with a conversation an agent has taken.
    func conversation(_ server: TestServer, visitorName: String = "Vera", agentName: String = "Grace")
        async throws -> (visitor: VisitorSession, device: String, agent: AgentSession, conversation: Conversation) {
        let device = "phone-\(UUID().uuidString)"
        let visitor = try await server.visitor(device, name: visitorName)
        let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(subject: "Parcel"), token: visitor.token, as: Conversation.self)
        let agent = try await server.agent(name: agentName)
        #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
        return (visitor, device, agent, conversation)
    }

    func register(_ server: TestServer, _ visitor: VisitorSession, device: String, _ request: PushDeviceRequest) async throws {
        #expect(try await server.http.send("PUT", "/v1/push/devices/\(device)", request, token: visitor.token).status == 200)
    }

    @discardableResult
    func say(_ text: String, in conversation: ConversationID, token: String, server: TestServer) async throws -> SendMessageResponse {
        try await server.http.post("/v1/conversations/\(conversation)/messages", SendMessageRequest(clientMessageID: UUID().uuidString, text: text),
                                   token: token, as: SendMessageResponse.self)
    }

    /// Moves the clock a second at a time until the fake has `count` requests of `provider`.
    func pushes(_ count: Int, _ provider: String, fake: PushProviderFake, clock: ManualClock) async throws -> [PushProviderFake.Request] {
        for _ in 0..<200 {
            if let found = try? await fake.requests(count: count, provider: provider, timeout: 0.2) { return found }
            clock.advance(by: 1)
        }
        throw TestFailure("the fake never got \(count) \(provider) requests")
    }

    /// Reads the admins' list until `condition` holds (the worker records just after the answer).
    func deliveries(_ server: TestServer, fake: PushProviderFake, until condition: ([PushDelivery]) -> Bool) async throws -> [PushDelivery] {
        for _ in 0..<200 {
            let list = try await server.http.get("\(push(server))/deliveries", token: server.adminToken, as: PushDeliveryList.self).deliveries
            if condition(list) { return list }
            _ = try? await fake.requests(count: Int.max, provider: nil, timeout: 0.05)
        }
        throw TestFailure("the deliveries never matched")
    }

    static let apnsToken = String(repeating: "a1", count: 32)

    @Test(arguments: TestStore.available)
    func agentReply_reachesEachDeviceOnce_apnsInTheClear_fcmEncrypted_noPlaintextOnTheWire(_ store: TestStore) async throws {
        try await withPushFake(store) { server, fake, clock in
            let (visitor, device, agent, conversation) = try await conversation(server)
            let keys = PushKeys()
            try await register(server, visitor, device: device, PushDeviceRequest(provider: .apns, token: Self.apnsToken, environment: .sandbox))
            let fcmToken = "fcm-registration-token-\(UUID().uuidString)"
            try await register(server, visitor, device: "tablet-\(UUID().uuidString)", PushDeviceRequest(
                provider: .fcm, token: fcmToken, encryption: PushEncryptionKeys(publicKey: keys.publicKey, authSecret: keys.authSecretText), locale: "de"))

            try await say("Hello, is my parcel on its way?", in: conversation.id, token: visitor.token, server: server)  // the visitor's own: no push
            let reply = try await say("Your parcel left the depot", in: conversation.id, token: agent.token, server: server)

            let apns = try await pushes(1, "apns", fake: fake, clock: clock)
            let fcm = try await pushes(1, "fcm", fake: fake, clock: clock)
            #expect(apns.count == 1 && fcm.count == 1)
            let sent = try #require(apns.first)
            #expect(sent.status == 200 && sent.httpVersion == "2" && sent.path == "/3/device/\(Self.apnsToken)" && sent.token == Self.apnsToken)
            #expect(sent.headers["apns-topic"] == Self.topic && sent.headers["apns-push-type"] == "alert" && sent.headers["apns-priority"] == "10")
            let userInfo = try #require(try JSONSerialization.jsonObject(with: Data(sent.body.utf8)) as? [String: Any])
            let content = try ParleyPush.decryptNotification(userInfo, keys: nil)
            #expect(content == PushContent(kind: .message, conversationID: conversation.id, seq: reply.event.seq, title: "Grace",
                                           body: "Your parcel left the depot", badge: 1))

            let google = try #require(fcm.first)
            #expect(google.status == 200 && google.path == "/v1/projects/\(fake.fcmProjectID)/messages:send" && google.token == fcmToken)
            #expect(!google.body.contains("parcel") && !google.body.contains("Grace") && google.body.contains(conversation.id.rawValue),
                    "Google sees ciphertext and the conversation id only")
            let message = try #require((try JSONSerialization.jsonObject(with: Data(google.body.utf8)) as? [String: Any])?["message"] as? [String: Any])
            let data = try #require(message["data"] as? [String: String])
            let opened = try ParleyPush.decryptNotification(data, keys: keys)
            #expect(opened.body == "Your parcel left the depot" && opened.title == "Grace" && opened.badge == 1)
            #expect(try ParleyPush.handleRemoteNotification(data) == conversation.id)

            // A second reply: the provider tokens are reused (one OAuth exchange in all).
            try await say("It arrives tomorrow", in: conversation.id, token: agent.token, server: server)
            _ = try await pushes(2, "apns", fake: fake, clock: clock)
            _ = try await pushes(2, "fcm", fake: fake, clock: clock)
            #expect(try await fake.requests(provider: "oauth").count == 1)
            let badges = try await fake.requests(provider: "apns").compactMap { request -> Int? in
                let json = try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any]
                return (json?["aps"] as? [String: Any])?["badge"] as? Int
            }
            #expect(badges == [1, 2], "the badge counts what the visitor has not read")

            let list = try await deliveries(server, fake: fake) { $0.count == 4 && $0.allSatisfy { $0.status == .delivered } }
            #expect(list.allSatisfy { $0.conversationID == conversation.id && $0.kind == .message && $0.attempts.count == 1 })
            // Once each: nothing more arrives however long the clock runs.
            clock.advance(by: 60)
            _ = try? await fake.requests(count: Int.max, provider: nil, timeout: 0.3)
            let apnsCount = try await fake.requests(provider: "apns").count, fcmCount = try await fake.requests(provider: "fcm").count
            #expect(apnsCount == 2 && fcmCount == 2)
        }
    }

    @Test(arguments: TestStore.available)
    func readBeforeItWasDue_isSkipped_laterReplyTransferAndEndArePushed(_ store: TestStore) async throws {
        try await withPushFake(store, configure: { $0.push.delay = 10 }) { server, fake, clock in
            let (visitor, device, agent, conversation) = try await conversation(server)
            try await register(server, visitor, device: device, PushDeviceRequest(provider: .apns, token: Self.apnsToken))

            // The app is open: the visitor reads the reply within the delay, so no push goes out.
            let reply = try await say("Seen at once", in: conversation.id, token: agent.token, server: server)
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/read", ReadRequest(seq: reply.event.seq), token: visitor.token)
                .status == 204)
            clock.advance(by: 11)
            let skipped = try await deliveries(server, fake: fake) { $0.first?.status == .skipped }
            #expect(skipped.first?.lastError == "the visitor read it before it was due")

            // In the background: the next reply, a page the agent pushes, a transfer to the queue and
            // the end are pushed.
            try await say("Anything else?", in: conversation.id, token: agent.token, server: server)
            let page = PushPageRequest(clientMessageID: "page-1", url: "https://help.example.com/returns", title: "Returns")
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/pages", page, token: agent.token).status == 201)
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/transfer", TransferRequest(queueID: server.demo.queue.id),
                                               token: agent.token).status == 200)
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token)
                .status == 200)
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/end", body: Data("{}".utf8), token: agent.token)
                .status == 200)
            clock.advance(by: 11)
            let sent = try await pushes(4, "apns", fake: fake, clock: clock)
            let contents = try sent.map { try ParleyPush.decryptNotification(
                try #require(try JSONSerialization.jsonObject(with: Data($0.body.utf8)) as? [String: Any]), keys: nil) }
            #expect(contents.map(\.kind) == [.message, .page, .transferred, .ended], "in order")
            #expect(contents[1].body == "Sent you a page: Returns" && sent[1].headers["apns-priority"] == "10")
            #expect(contents[2].body == "Your conversation was passed to a colleague.")
            #expect(contents[3].body == "The conversation has ended." && contents[3].title == "Grace" && sent[3].headers["apns-priority"] == "5")
        }
    }

    @Test(arguments: TestStore.available)
    func goneTokens_removeTheDevice_andABusyProviderIsRetried_deliveredOnce(_ store: TestStore) async throws {
        try await withPushFake(store) { server, fake, clock in
            let (visitor, device, agent, conversation) = try await conversation(server)
            let fcmToken = "fcm-gone-token-\(UUID().uuidString)"
            try await register(server, visitor, device: device, PushDeviceRequest(provider: .apns, token: Self.apnsToken))
            try await register(server, visitor, device: "tablet-0001", PushDeviceRequest(provider: .fcm, token: fcmToken))
            try await fake.setMode(gone: [Self.apnsToken, fcmToken])
            try await say("Are you there?", in: conversation.id, token: agent.token, server: server)
            #expect(try await pushes(1, "apns", fake: fake, clock: clock).first?.status == 410)
            #expect(try await pushes(1, "fcm", fake: fake, clock: clock).first?.status == 404)
            let failed = try await deliveries(server, fake: fake) { $0.count == 2 && $0.allSatisfy { $0.status == .failed } }
            #expect(failed.allSatisfy { $0.attempts.count == 1 })
            let devices = try await server.http.get("/v1/push/devices", token: visitor.token, as: PushDeviceList.self)
            #expect(devices.devices.isEmpty, "a gone token's device is removed")

            // Registered again; the provider is down for a while, then back: one push arrives.
            try await fake.reset()
            try await register(server, visitor, device: device, PushDeviceRequest(provider: .apns, token: Self.apnsToken))
            try await fake.setMode(down: true)
            try await say("Still there?", in: conversation.id, token: agent.token, server: server)
            let refused = try await pushes(3, "apns", fake: fake, clock: clock)
            #expect(refused.allSatisfy { $0.status == 503 })
            try await fake.setMode(down: false)
            let all = try await pushes(4, "apns", fake: fake, clock: clock)
            clock.advance(by: 30)
            _ = try? await fake.requests(count: Int.max, provider: nil, timeout: 0.3)
            let final = try await fake.requests(provider: "apns")
            #expect(final.filter { $0.status == 200 }.count == 1, "delivered once")
            #expect(Set(all.compactMap { $0.headers["apns-id"] }).count == 1 && Set(all.map(\.body)).count == 1, "every attempt the same push")
            let list = try await deliveries(server, fake: fake) { $0.first?.status == .delivered }
            #expect(list.first?.attempts.map(\.status) == [503, 503, 503, 200])
        }
    }

    @Test func admin_keysSealedAndNeverShown_badKeysAndPrivateTokenURIsRefused() async throws {
        let fake = try await PushProviderFake.start()
        defer { fake.stop() }
        try await withServer(configure: { $0.outbound = OutboundPolicy() }) { server in
            let base = push(server)
            #expect(try await server.http.get(base, token: server.adminToken, as: PushSettings.self) == PushSettings())
            let bad = APNsCredentialsRequest(teamID: fake.apnsTeamID, keyID: fake.apnsKeyID,
                                             privateKey: "-----BEGIN PRIVATE KEY-----\nAAAA\n-----END PRIVATE KEY-----", topic: Self.topic)
            #expect(try await server.http.send("PUT", "\(base)/apns", bad, token: server.adminToken).status == 400)
            let good = APNsCredentialsRequest(teamID: fake.apnsTeamID, keyID: fake.apnsKeyID, privateKey: fake.apnsKeyPEM, topic: Self.topic)
            #expect(try await server.http.send("PUT", "\(base)/apns", good, token: server.adminToken).status == 200)
            // The service account's token endpoint is the fake's, on loopback: refused by default (SSRF).
            let account = try ParleyJSON.decode(FCMServiceAccount.self, from: Data(fake.serviceAccountJSON.utf8))
            let refused = try await server.http.send("PUT", "\(base)/fcm", FCMCredentialsRequest(serviceAccount: account), token: server.adminToken)
            #expect(refused.status == 400 && String(decoding: refused.body, as: UTF8.self).contains("token_uri"))

            let shown = try await server.http.request("GET", base, token: server.adminToken)
            let text = String(decoding: shown.body, as: UTF8.self)
            let keyBody = fake.apnsKeyPEM.split(separator: "\n").dropFirst().first.map(String.init) ?? "?"
            #expect(shown.status == 200 && text.contains(fake.apnsKeyID) && !text.contains(keyBody), "the key is never shown again")
            let stored = try #require(try await server.store.pushSettings(app: server.appID))
            #expect(stored.sealedAPNsKey?.hasPrefix("v1.") == true && stored.sealedAPNsKey?.contains(keyBody) == false, "sealed at rest")

            #expect(try await server.http.send("PATCH", base, UpdatePushSettingsRequest(previews: false), token: server.adminToken).status == 200)
            #expect(try await server.http.get(base, token: server.adminToken, as: PushSettings.self).previews == false)
            #expect(try await server.http.request("DELETE", "\(base)/apns", token: server.adminToken).status == 200)
            #expect(try await server.http.get(base, token: server.adminToken, as: PushSettings.self).apns == nil)

            // A plain agent is refused; a visitor (like another app's admin) finds no such app.
            let agent = try await server.agent()
            #expect(try await server.http.request("GET", base, token: agent.token).status == 403)
            let visitor = try await server.visitor()
            #expect(try await server.http.request("GET", base, token: visitor.token).status == 404)
            #expect(try await server.http.request("GET", "\(base)/deliveries", token: visitor.token).status == 404)
        }
    }

    @Test func devicesAuthSecret_isSealedAtRest() async throws {
        try await withServer { server in
            let visitor = try await server.visitor("phone-0001")
            let keys = PushKeys()
            let request = PushDeviceRequest(provider: .fcm, token: "fcm-token-0123456789abcdef",
                                            encryption: PushEncryptionKeys(publicKey: keys.publicKey, authSecret: keys.authSecretText))
            #expect(try await server.http.send("PUT", "/v1/push/devices/phone-0001", request, token: visitor.token).status == 200)
            let stored = try #require(try await server.store.pushDevice("phone-0001", app: server.appID))
            #expect(stored.request.encryption?.authSecret.hasPrefix("v1.") == true && stored.request.encryption?.authSecret != keys.authSecretText)
            #expect(try PushService.openAuthSecret(try #require(stored.request.encryption?.authSecret),
                                                   with: try SecretBox(key: Data(repeating: 9, count: 32))) == keys.authSecretText)
        }
    }

    @Test func twoNodes_shareThePushRows_eachSentOnce() async throws {
        guard nodeTestDatabaseURL != nil else { return }
        let fake = try await PushProviderFake.start()
        defer { fake.stop() }
        let url = try #require(URL(string: fake.tlsURL))
        try await withTwoNodes(configure: {
            $0.outboundTrustRootsFile = fake.caFile
            $0.push.isDeliveryEnabled = true
            $0.push.delay = 0
            $0.push.pollInterval = 0.05
            $0.push.apnsSandboxURL = url
            $0.push.apnsProductionURL = url
            $0.push.fcmURL = url
        }) { one, two, _ in
            try await setUpProviders(one, fake: fake)
            two.parley.pushApps.insert(one.appID)
            var expected = 0
            for index in 0..<4 {
                let node = index.isMultiple(of: 2) ? one : two
                let (visitor, device, agent, conversation) = try await conversation(node)
                let token = String(repeating: String(format: "%02x", index + 16), count: 32)
                try await register(node, visitor, device: device, PushDeviceRequest(provider: .apns, token: token))
                for message in 0..<5 {
                    try await say("\(index).\(message)", in: conversation.id, token: agent.token, server: node)
                    expected += 1
                }
            }
            let sent = try await fake.requests(count: expected, provider: "apns", timeout: 60)
            #expect(sent.count == expected && Set(sent.compactMap { $0.headers["apns-id"] }).count == expected, "each row once, by one node or the other")
            #expect(sent.allSatisfy { $0.status == 200 })
            for index in 0..<4 {
                let token = String(repeating: String(format: "%02x", index + 16), count: 32)
                let bodies = try sent.filter { $0.token == token }.map { request -> String in
                    let json = try #require(try JSONSerialization.jsonObject(with: Data(request.body.utf8)) as? [String: Any])
                    return try ParleyPush.decryptNotification(json, keys: nil).body ?? ""
                }
                #expect(bodies == (0..<5).map { "\(index).\($0)" }, "per device, in order")
            }
        }
    }

    /// A callback request's offer is pushed at once (the app has a minute to ask its visitor), urgent,
    /// naming the request and the action that fetches its dialog, even with the usual delay set.
    @Test(arguments: TestStore.available)
    func callbackOffer_isPushedAtOnce_namingTheRequest(_ store: TestStore) async throws {
        try await withPushFake(store, configure: { $0.push.delay = 30 }) { server, fake, _ in
            let device = "phone-\(UUID().uuidString)"
            let visitor = try await server.visitor(device, name: "Vera")
            try await register(server, visitor, device: device, PushDeviceRequest(provider: .apns, token: Self.apnsToken, environment: .sandbox))
            let view = try await server.http.post("/v1/callbacks", RequestCallbackRequest(kind: .callMe, phone: "+4930901820"), token: visitor.token,
                                                  as: CallbackView.self)
            let agent = try await server.agent(name: "Grace")
            #expect(try await server.http.request("POST", "/v1/conversations/\(view.conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)

            let sent = try #require(try await fake.requests(count: 1, provider: "apns", timeout: 20).first)
            #expect(sent.headers["apns-priority"] == "10")
            let userInfo = try #require(try JSONSerialization.jsonObject(with: Data(sent.body.utf8)) as? [String: Any])
            let content = try ParleyPush.decryptNotification(userInfo, keys: nil)
            #expect(content.kind == .callbackOffered && content.callbackID == view.callback.id && content.callbackAction == .dialog)
            #expect(content.body == CallbackDialogTexts().offer)
            // The server's manual clock never moved: a push held for the 30 s delay would not have come.
        }
    }
}
