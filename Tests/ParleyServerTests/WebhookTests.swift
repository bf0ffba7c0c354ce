import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyStore
import ParleyStorePostgres
import ParleyTestSupport
import Testing

/// Webhooks end to end: a real server (SQLite, and PostgreSQL when `PARLEY_TEST_DATABASE_URL` is
/// set) delivering to a real receiver that checks every signature with the `standardwebhooks`
/// package. Retries are driven by the server's manual clock; the tests await the receiver, never
/// a guessed delay.
@Suite(.timeLimit(.minutes(3)), .enabled(if: WebhookReceiver.isAvailable, "make .venv: bash scripts/test.sh prepares it"))
struct WebhookTests {
    typealias Store = TestStore
    static var stores: [Store] { TestStore.available }

    /// A server on `store` whose webhook worker runs on `clock`: retries 1 s doubling to 4 s, no jitter.
    func withWebhookServer(
        _ store: Store, clock: ManualClock, configure: @escaping (inout ServerConfiguration) -> Void = { _ in },
        _ body: (TestServer) async throws -> Void
    ) async throws {
        let setUp: (inout ServerConfiguration) -> Void = {
            $0.clock = clock
            $0.webhooks.isDeliveryEnabled = true
            $0.webhooks.pollInterval = 1
            $0.webhooks.backoff.initialDelay = 1
            $0.webhooks.backoff.maximumDelay = 4
            $0.webhooks.backoff.retryDuration = 600
            $0.webhooks.random = { 0 }
            configure(&$0)
        }
        try await withServer(on: store, configure: setUp, body)
    }

    /// Moves the clock a second at a time until the receiver has `count` requests (each step waits
    /// for the receiver's news, briefly, instead of sleeping).
    func received(_ count: Int, by receiver: WebhookReceiver, clock: ManualClock) async throws -> [WebhookReceiver.Hook] {
        for _ in 0..<200 {
            let hooks = try await receiver.received(count: count, timeout: 0.2)
            if hooks.count >= count { return hooks }
            clock.advance(by: 1)
        }
        throw TestFailure("the receiver never got \(count) requests")
    }

    /// Reads `read` until `condition` holds, each try after a short wait on the receiver (the
    /// worker records an attempt just after the receiver answers it).
    func until<T>(_ receiver: WebhookReceiver, _ read: () async throws -> T, _ condition: (T) -> Bool) async throws -> T {
        for _ in 0..<200 {
            let value = try await read()
            if condition(value) { return value }
            _ = try await receiver.received(count: Int.max, timeout: 0.05)
        }
        throw TestFailure("the condition never held")
    }

    func webhooks(_ server: TestServer) -> String { "/v1/admin/apps/\(server.appID)/webhooks" }

    func create(_ server: TestServer, url: String, events: [WebhookEventType]? = nil) async throws -> WebhookEndpointWithSecret {
        try await server.http.post(webhooks(server), CreateWebhookRequest(url: url, events: events), token: server.adminToken, as: WebhookEndpointWithSecret.self)
    }

    func say(_ text: String, in conversation: ConversationID, as visitor: VisitorSession, server: TestServer) async throws {
        _ = try await server.http.post("/v1/conversations/\(conversation)/messages", SendMessageRequest(clientMessageID: UUID().uuidString, text: text),
                                       token: visitor.token, as: SendMessageResponse.self)
    }

    @Test(arguments: stores)
    func deliveries_signed_retriedWithTheSameIDAndBody_inOrderPerConversation(_ store: Store) async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let clock = ManualClock(start: Date())
        try await withWebhookServer(store, clock: clock) { server in
            let created = try await create(server, url: receiver.hookURL, events: [.conversationStarted, .messageCreated])
            #expect(created.secret.hasPrefix("whsec_") && created.endpoint.isEnabled && created.endpoint.events == [.messageCreated, .conversationStarted])
            try await receiver.setSecrets([created.secret])
            try await receiver.fail(next: 2)

            let visitor = try await server.visitor(name: "Eve")
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            for text in ["one", "two", "three"] { try await say(text, in: conversation.id, as: visitor, server: server) }

            let hooks = try await received(6, by: receiver, clock: clock)
            #expect(hooks.count == 6)
            #expect(hooks.allSatisfy { $0.verified == [true] }, "standardwebhooks verifies every request")
            #expect(hooks.map(\.status) == [500, 500, 200, 200, 200, 200])
            #expect(Set(hooks.prefix(3).map(\.id)).count == 1 && Set(hooks.prefix(3).map(\.body)).count == 1,
                    "a retry has the same webhook-id and the same bytes")
            #expect(Set(hooks.map(\.id)).count == 4)
            let payloads = try hooks.dropFirst(2).map { try ParleyJSON.decode(WebhookPayload.self, from: Data(($0.body ?? "").utf8)) }
            #expect(payloads.map(\.type) == [.conversationStarted, .messageCreated, .messageCreated, .messageCreated])
            #expect(payloads.compactMap(\.data.message?.text) == ["one", "two", "three"], "in order, behind the retried event")
            #expect(payloads.allSatisfy { $0.appID == server.appID && $0.data.conversation.id == conversation.id })
            #expect(payloads[1].data.author?.role == .visitor && payloads[1].data.visitor.name == "Eve" && payloads[1].data.visitor.id == visitor.visitor.id)

            let list = try await until(receiver) {
                try await server.http.get("\(webhooks(server))/\(created.endpoint.id)/deliveries", token: server.adminToken, as: WebhookDeliveryList.self)
            } _: { $0.deliveries.count == 4 && $0.deliveries.allSatisfy { $0.status == .delivered } }
            let started = try #require(list.deliveries.first { $0.type == "conversation.started" })
            #expect(started.attempts.map(\.status) == [500, 500, 200] && started.attempts.first?.response == "receiver says no")
            #expect(started.request == hooks[0].body && started.webhookID == hooks[0].id)

            // The secret is shown once: never in a list, a read or an update.
            for path in [webhooks(server), "\(webhooks(server))/\(created.endpoint.id)"] {
                let reply = try await server.http.request("GET", path, token: server.adminToken)
                #expect(reply.status == 200 && !String(decoding: reply.body, as: UTF8.self).contains(created.secret.dropFirst(6)))
            }
        }
    }

    /// Pyrus' webhook per agent reply: `message.created` for the agent's message names the agent as
    /// author and carries the verified visitor's own user id, so the app's backend can react.
    @Test(arguments: stores)
    func anAgentsReply_toAVerifiedVisitor_carriesTheAuthorAndTheUserID(_ store: Store) async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let clock = ManualClock(start: Date())
        try await withWebhookServer(store, clock: clock) { server in
            let created = try await create(server, url: receiver.hookURL, events: [.messageCreated])
            try await receiver.setSecrets([created.secret])
            let identity = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/identity", IdentitySettings(acceptsIdentityHash: true),
                                                      token: server.adminToken)
            #expect(identity.status == 200)
            let hash = IdentityHash.make(userID: "crm-4711", secretKey: server.demo.app.secretKey)
            let visitor = try await server.http.post("/v1/visitor/session", VisitorSessionRequest(
                appID: server.appID, deviceID: "phone-4711", name: "Ann", identity: .init(userID: "crm-4711", kind: .userHash(hash))), as: VisitorSession.self)
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let agent = try await server.agent(name: "Grace")
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "reply-1", text: "Refund sent."),
                                           token: agent.token, as: SendMessageResponse.self)

            let hooks = try await received(1, by: receiver, clock: clock)
            #expect(hooks.first?.verified == [true])
            let payload = try ParleyJSON.decode(WebhookPayload.self, from: Data((hooks.first?.body ?? "").utf8))
            #expect(payload.type == .messageCreated && payload.data.message?.text == "Refund sent.")
            #expect(payload.data.author == .agent(agent.agent.id, name: "Grace"))
            #expect(payload.data.visitor.userID == "crm-4711" && payload.data.visitor.name == "Ann")
            #expect(payload.data.conversation.id == conversation.id)
        }
    }

    @Test(arguments: stores)
    func endpoint_failingPastTheRetryTime_isDisabledWithAReason_thenEnabledAndResent(_ store: Store) async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let clock = ManualClock(start: Date())
        try await withWebhookServer(store, clock: clock, configure: { $0.webhooks.backoff.retryDuration = 3 }) { server in
            let created = try await create(server, url: receiver.hookURL, events: [.messageCreated])
            try await receiver.setSecrets([created.secret])
            try await receiver.fail(next: 1_000)
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            try await say("lost?", in: conversation.id, as: visitor, server: server)

            // Attempts at 0 s, 1 s and (unless the clock moved on first) 3 s; the next would be past
            // the 3 s retry time: given up, and the endpoint disabled.
            let path = "\(webhooks(server))/\(created.endpoint.id)"
            var endpoint = try await server.http.get(path, token: server.adminToken, as: WebhookEndpoint.self)
            for _ in 0..<100 where endpoint.isEnabled {
                _ = try await receiver.received(count: 99, timeout: 0.1)
                clock.advance(by: 1)
                endpoint = try await server.http.get(path, token: server.adminToken, as: WebhookEndpoint.self)
            }
            #expect(!endpoint.isEnabled)
            #expect(endpoint.disabledReason?.contains("kept failing") == true && endpoint.disabledReason?.contains("HTTP 500") == true)
            let failed = try #require(try await server.http.get("\(path)/deliveries", token: server.adminToken, as: WebhookDeliveryList.self).deliveries.first)
            #expect(failed.status == .failed && (2...3).contains(failed.attempts.count) && failed.lastError == "HTTP 500")
            let before = try await receiver.received().count
            #expect(before == failed.attempts.count)

            // Enabled again, and the given-up delivery resent: the same webhook-id arrives, and is taken.
            try await receiver.fail(next: 0)
            let enabled = try await server.http.send("POST", "\(path)/enable", [String: String](), token: server.adminToken)
            #expect(enabled.status == 200)
            #expect(try enabled.decode(WebhookEndpoint.self).isEnabled)
            let resent = try await server.http.send("POST", "\(path)/deliveries/\(failed.id)/resend", [String: String](), token: server.adminToken)
            #expect(resent.status == 202)
            let hooks = try await received(before + 1, by: receiver, clock: clock)
            #expect(hooks.last?.id == failed.webhookID && hooks.last?.status == 200 && hooks.last?.verified == [true])
            #expect(try await server.http.send("POST", "\(path)/deliveries/nope/resend", [String: String](), token: server.adminToken).status == 404)
        }
    }

    @Test(arguments: stores)
    func rotatedSecret_bothSignaturesVerifyDuringTheOverlap_onlyTheNewOneAfter(_ store: Store) async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let clock = ManualClock(start: Date())
        try await withWebhookServer(store, clock: clock, configure: { $0.webhooks.rotationOverlap = 60 }) { server in
            let created = try await create(server, url: receiver.hookURL, events: [.messageCreated])
            let rotated = try await server.http.post("\(webhooks(server))/\(created.endpoint.id)/rotate-secret", [String: String](), token: server.adminToken,
                                                     as: WebhookEndpointWithSecret.self)
            #expect(rotated.secret != created.secret)
            #expect(abs((rotated.endpoint.previousSecretExpiresAt ?? .distantPast).timeIntervalSince(clock.now().addingTimeInterval(60))) < 0.01)
            try await receiver.setSecrets([created.secret, rotated.secret])
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            try await say("during", in: conversation.id, as: visitor, server: server)
            let during = try await received(1, by: receiver, clock: clock)
            #expect(during.first?.verified == [true, true], "signed with both secrets")
            #expect(during.first?.signature?.split(separator: " ").count == 2)

            clock.advance(by: 61)
            try await say("after", in: conversation.id, as: visitor, server: server)
            let after = try await received(2, by: receiver, clock: clock)
            #expect(after.last?.verified == [false, true], "the old secret no longer signs")
        }
    }

    @Test(arguments: stores)
    func callbackRequests_makeTheirEvents_inOrder(_ store: Store) async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let clock = ManualClock(start: Date())
        try await withWebhookServer(store, clock: clock) { server in
            let callbackEvents: [WebhookEventType] = [.callbackRequested, .callbackOffered, .callbackConfirmed, .callbackSnoozed, .callbackCompleted,
                                                      .callbackCancelled]
            let created = try await create(server, url: receiver.hookURL, events: callbackEvents)
            try await receiver.setSecrets([created.secret])
            let visitor = try await server.visitor()
            let view = try await server.http.post("/v1/callbacks", RequestCallbackRequest(kind: .callMe, phone: "+4930901820"), token: visitor.token,
                                                  as: CallbackView.self)
            let agent = try await server.agent(name: "Ann")
            #expect(try await server.http.request("POST", "/v1/conversations/\(view.conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
            #expect(try await server.http.request("POST", "/v1/callbacks/\(view.callback.id)/actions/confirm", token: visitor.token).status == 200)
            #expect(try await server.http.send("POST", "/v1/conversations/\(view.conversation.id)/callback/outcome", CallbackOutcomeRequest(outcome: .done),
                                               token: agent.token).status == 200)
            let hooks = try await received(4, by: receiver, clock: clock)
            let payloads = try hooks.map { try ParleyJSON.decode(WebhookPayload.self, from: Data(($0.body ?? "").utf8)) }
            #expect(payloads.map(\.type) == [.callbackRequested, .callbackOffered, .callbackConfirmed, .callbackCompleted])
            #expect(payloads.map { $0.data.conversation.callback?.status } == [.waiting, .offered, .connecting, .ended])
            #expect(payloads[1].data.agent?.id == agent.agent.id.rawValue && payloads[3].data.conversation.callback?.outcome == .done)
            #expect(hooks.allSatisfy { $0.verified == [true] })
        }
    }

    @Test(arguments: stores)
    func ratingsFormsAndTheLifecycle_eachMakeTheirEvent(_ store: Store) async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        let clock = ManualClock(start: Date())
        try await withWebhookServer(store, clock: clock) { server in
            let created = try await create(server, url: receiver.hookURL, events: [.conversationStarted, .conversationAssigned, .conversationEnded,
                                                                                  .ratingCreated, .formSubmitted])
            try await receiver.setSecrets([created.secret])
            let forms = "/v1/admin/apps/\(server.appID)/forms"
            let topic = FormField(key: "topic", kind: .singleLine, isRequired: true, label: ["en": "Topic"])
            let score = FormField(key: "score", kind: .rating, isRequired: true, label: ["en": "How did we do?"])
            #expect(try await server.http.send("PUT", "\(forms)/pre_chat", Form(kind: .preChat, fields: [topic]), token: server.adminToken).status == 200)
            #expect(try await server.http.send("PUT", "\(forms)/post_chat", Form(kind: .postChat, fields: [score]), token: server.adminToken).status == 200)
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(formAnswers: ["topic": .text("refund")]),
                                                          token: visitor.token, as: Conversation.self)
            let agent = try await server.agent(name: "Ann")
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
            try await say("not sent: filtered out", in: conversation.id, as: visitor, server: server)
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/end", body: Data("{}".utf8), token: agent.token).status == 200)
            #expect(try await server.http.send("PUT", "/v1/conversations/\(conversation.id)/rating", RatingRequest(score: 5, comment: "Kind"),
                                               token: visitor.token).status == 200)
            #expect(try await server.http.send("PUT", "/v1/conversations/\(conversation.id)/forms/post_chat", SubmitFormRequest(answers: ["score": .integer(4)]),
                                               token: visitor.token).status == 200)
            let hooks = try await received(6, by: receiver, clock: clock)
            let payloads = try hooks.map { try ParleyJSON.decode(WebhookPayload.self, from: Data(($0.body ?? "").utf8)) }
            #expect(payloads.map(\.type) == [.conversationStarted, .formSubmitted, .conversationAssigned, .conversationEnded, .ratingCreated,
                                             .formSubmitted])
            #expect(payloads[0].data.form?.answers == ["topic": .text("refund")] && payloads[0].data.reason == "opened")
            #expect(payloads[1].data.form?.kind == .preChat)
            #expect(payloads[2].data.agent?.name == "Ann" && payloads[3].data.reason == "ended_by_agent" && payloads[4].data.rating?.score == 5)
            #expect(payloads[5].data.form?.kind == .postChat && payloads[5].data.form?.answers == ["score": .integer(4)])
        }
    }

    @Test func privateDestinations_refusedAtCreation_andAtDelivery_redirectsNotFollowed() async throws {
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        // The default policy: public https only.
        try await withServer(configure: { $0.outbound = OutboundPolicy() }) { server in
            for url in ["http://127.0.0.1:\(receiver.port)/hook", "https://127.0.0.1/hook", "https://localhost/hook", "https://169.254.169.254/latest/meta-data",
                        "https://[::1]/hook", "https://10.1.2.3/hook", "https://192.168.0.1/", "https://[fd00::1]/", "https://user:pw@example.com/hook",
                        "not a url", "ftp://example.com/"] {
                let reply = try await server.http.send("POST", webhooks(server), CreateWebhookRequest(url: url), token: server.adminToken)
                #expect(reply.status == 400, "\(url)")
            }
            #expect(try await server.http.get(webhooks(server), token: server.adminToken, as: WebhookEndpointList.self).webhooks.isEmpty)
        }

        // Made while private addresses were allowed, then refused at delivery once they are not.
        let clock = ManualClock(start: Date())
        var first: TestServer? = try await TestServer.start(configure: {
            $0.clock = clock
            $0.webhooks.isDeliveryEnabled = true
        })
        let server = try #require(first)
        // It takes messages only once the policy is strict (its first delivery is then the refused one).
        let privateEndpoint = try await create(server, url: "https://127.0.0.1:\(receiver.port)/hook", events: [.ratingCreated])
        let redirecting = try await create(server, url: "http://127.0.0.1:\(receiver.port)/redirect", events: [.messageCreated])
        let visitor = try await server.visitor()
        let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
        try await say("redirect me", in: conversation.id, as: visitor, server: server)
        let redirected = try await received(1, by: receiver, clock: clock)
        #expect(redirected.map(\.path) == ["/redirect"], "the 307 is an answer, not followed")
        // The attempt is recorded just after the receiver answered it.
        let redirectDelivery = try await until(receiver) {
            try await server.http.get("\(webhooks(server))/\(redirecting.endpoint.id)/deliveries", token: server.adminToken, as: WebhookDeliveryList.self)
        } _: { $0.deliveries.first?.attempts.isEmpty == false }
        #expect(redirectDelivery.deliveries.first?.attempts.first?.status == 307 && redirectDelivery.deliveries.first?.status == .pending)
        await server.stop(keepFiles: true)
        first = nil

        let strict = try await TestServer.start(restarting: server, configure: {
            $0.clock = clock
            $0.outbound = OutboundPolicy()
            $0.webhooks.isDeliveryEnabled = true
        })
        defer { Task { await strict.stop() } }
        let patched = try await strict.http.send("PATCH", "\(webhooks(strict))/\(privateEndpoint.endpoint.id)",
                                                 UpdateWebhookRequest(events: [.messageCreated]), token: strict.adminToken)
        #expect(patched.status == 200, "an update that keeps the URL does not check it again")
        let moved = try await strict.http.send("PATCH", "\(webhooks(strict))/\(privateEndpoint.endpoint.id)",
                                               UpdateWebhookRequest(url: "https://10.0.0.1/hook"), token: strict.adminToken)
        #expect(moved.status == 400, "a new URL is checked")
        try await say("to a private address", in: conversation.id, as: visitor, server: strict)
        var attempts: [WebhookAttempt] = []
        for _ in 0..<100 where attempts.count < 2 {
            attempts = try await strict.http.get("\(webhooks(strict))/\(privateEndpoint.endpoint.id)/deliveries", token: strict.adminToken,
                                                 as: WebhookDeliveryList.self).deliveries.first?.attempts ?? []
            _ = try await receiver.received(count: 99, timeout: 0.1)
            clock.advance(by: 1)
        }
        #expect(attempts.count >= 2 && attempts.allSatisfy { $0.status == nil && $0.error?.contains("private or reserved") == true })
        #expect(try await receiver.received().allSatisfy { $0.path == "/redirect" }, "nothing reached the private address")
    }

    @Test func addresses_checkedAndPinned() async throws {
        let policy = OutboundPolicy()
        for url in ["https://localhost/", "https://127.0.0.1/", "https://[::ffff:127.0.0.1]/", "https://0.0.0.0/"] {
            await #expect(throws: OutboundError.self, "\(url)") { _ = try await policy.checkedAddress(URL(string: url)!) }
        }
        #expect(try await policy.checkedAddress(URL(string: "https://8.8.8.8/")!) == nil, "a literal address needs no pin")
        #expect(OutboundPolicy.text(of: [203, 0, 113, 7]) == "203.0.113.7")
        #expect(OutboundPolicy.text(of: [0x20, 0x01, 0x0d, 0xb8] + Array(repeating: 0, count: 11) + [1]) == "2001:db8:0:0:0:0:0:1")
    }

    @Test func twoNodes_shareTheRows_eachDeliveredOnce() async throws {
        guard nodeTestDatabaseURL != nil else { return }
        let receiver = try await WebhookReceiver.start()
        defer { receiver.stop() }
        try await withTwoNodes(configure: {
            $0.webhooks.isDeliveryEnabled = true
            $0.webhooks.pollInterval = 0.05
        }) { one, two, _ in
            let created = try await create(one, url: receiver.hookURL, events: [.messageCreated])
            try await receiver.setSecrets([created.secret])
            // The second node learns of the endpoint at its next poll; until then its commits add no rows.
            two.parley.webhookApps.insert(one.appID)
            var expected = 0
            for index in 0..<6 {
                let node = index.isMultiple(of: 2) ? one : two
                let visitor = try await node.visitor()
                let conversation = try await node.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
                for message in 0..<5 {
                    try await say("\(index).\(message)", in: conversation.id, as: visitor, server: node)
                    expected += 1
                }
            }
            let hooks = try await receiver.received(count: expected, timeout: 60)
            #expect(hooks.count == expected && Set(hooks.compactMap(\.id)).count == expected, "each row once, by one node or the other")
            #expect(hooks.allSatisfy { $0.verified == [true] && $0.status == 200 })
            // Per conversation, in order.
            let texts = try hooks.map { try ParleyJSON.decode(WebhookPayload.self, from: Data(($0.body ?? "").utf8)).data.message?.text ?? "" }
            for index in 0..<6 {
                #expect(texts.filter { $0.hasPrefix("\(index).") } == (0..<5).map { "\(index).\($0)" })
            }
        }
    }
}
