import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// Real answers against the document: the main flows of a visitor, agents, an admin and the
/// operator, and the errors they run into, each answer checked for a documented status and a body
/// its schema takes.
extension OpenAPIDocumentTests {
    @Test func theVisitorAndAgentFlows_answerAsDocumented() async throws {
        try await withServer { server in
            var api = DocumentedCalls(http: server.http, spec: spec)
            let app = ["app": server.appID.rawValue]
            let admin = try await server.demoAgent().token
            let agent = try await server.agent(name: "Bo")
            let operatorToken = server.adminToken

            try await api.call(200, "GET", "/health")
            try await api.call(401, "GET", "/v1/conversations")
            try await api.call(401, "GET", "/v1/conversations", token: "pv1.forged.token")
            try await api.call(400, "POST", "/v1/visitor/session", body: Data("{".utf8))
            try await api.call(400, "POST", "/v1/visitor/session", json: VisitorSessionRequest(appID: server.appID, deviceID: "short"))
            try await api.call(404, "POST", "/v1/visitor/session", json: VisitorSessionRequest(appID: .generate(), deviceID: "device-openapi-0"))
            let session = try await api.call(200, "POST", "/v1/visitor/session", json: VisitorSessionRequest(
                appID: server.appID, deviceID: "device-openapi-1", name: "Ada", email: "ada@example.com", attributes: ["plan": "pro"]))
                .decode(VisitorSession.self)
            let visitor = session.token

            // The chat screen, with forms an admin sets.
            let preChat = Form(kind: .preChat, fields: [FormField(key: "email", kind: .email, isRequired: true, label: ["en": "Email"])])
            try await api.call(200, "PUT", "/v1/admin/apps/{app}/forms/{kind}", app.merging(["kind": "pre_chat"]) { $1 }, json: preChat, token: admin)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/forms/{kind}", app.merging(["kind": "pre_chat"]) { $1 }, token: admin)
            try await api.call(404, "GET", "/v1/admin/apps/{app}/forms/{kind}", app.merging(["kind": "unavailable"]) { $1 }, token: admin)
            let postChat = Form(kind: .postChat, fields: [FormField(key: "score", kind: .rating, label: ["en": "How did we do?"])])
            try await api.call(200, "PUT", "/v1/admin/apps/{app}/forms/{kind}", app.merging(["kind": "post_chat"]) { $1 }, json: postChat, token: admin)
            try await api.call(400, "PUT", "/v1/admin/apps/{app}/forms/{kind}", app.merging(["kind": "unavailable"]) { $1 }, json: postChat, token: admin)
            try await api.call(200, "GET", "/v1/appearance", token: visitor)
            try await api.call(200, "GET", "/v1/availability", token: visitor)
            try await api.call(404, "GET", "/v1/availability", query: "?queue=que_nonsense", token: visitor)
            try await api.call(200, "GET", "/v1/forms", token: visitor)
            try await api.call(403, "GET", "/v1/forms", token: operatorToken)
            try await api.call(200, "GET", "/v1/masking", token: visitor)
            try await api.call(401, "GET", "/v1/masking")

            // Open, talk, hand over.
            try await api.call(400, "POST", "/v1/conversations", json: OpenConversationRequest(subject: "Order"), token: visitor)
            try await api.call(403, "POST", "/v1/conversations", json: OpenConversationRequest(), token: agent.token)
            let opened = try await api.call(201, "POST", "/v1/conversations", json: OpenConversationRequest(
                subject: "Order #42", attributes: ["locale": "en"], formAnswers: ["email": .text("ada@example.com")]), token: visitor)
                .decode(Conversation.self)
            let conversation = ["id": opened.id.rawValue]
            try await api.call(200, "GET", "/v1/conversations", token: visitor)
            try await api.call(200, "GET", "/v1/conversations", query: "?view=queued&limit=5", token: agent.token)
            try await api.call(400, "GET", "/v1/conversations", query: "?view=nonsense", token: agent.token)
            try await api.call(200, "GET", "/v1/conversations/{id}", conversation, token: visitor)
            try await api.call(404, "GET", "/v1/conversations/{id}", ["id": "cnv_nonsense"], token: visitor)
            try await api.call(200, "POST", "/v1/conversations/{id}/accept", conversation, token: agent.token)
            try await api.call(409, "POST", "/v1/conversations/{id}/accept", conversation, token: agent.token)
            try await api.call(403, "POST", "/v1/conversations/{id}/accept", conversation, token: visitor)
            let hello = SendMessageRequest(clientMessageID: "m-1", text: "Hello")
            try await api.call(201, "POST", "/v1/conversations/{id}/messages", conversation, json: hello, token: visitor)
            try await api.call(200, "POST", "/v1/conversations/{id}/messages", conversation, json: hello, token: visitor)
            try await api.call(409, "POST", "/v1/conversations/{id}/messages", conversation,
                               json: SendMessageRequest(clientMessageID: "m-1", text: "Other"), token: visitor)
            try await api.call(400, "POST", "/v1/conversations/{id}/messages", conversation,
                               json: SendMessageRequest(clientMessageID: "m-2", text: "  "), token: visitor)
            try await api.call(413, "POST", "/v1/conversations/{id}/messages", conversation,
                               json: SendMessageRequest(clientMessageID: "m-3", text: String(repeating: "a", count: 10_001)), token: visitor)
            try await api.call(413, "POST", "/v1/conversations/{id}/messages", conversation,
                               body: Data(repeating: UInt8(ascii: " "), count: Limits.maxRequestBodyBytes + 1), token: visitor)
            try await api.call(201, "POST", "/v1/conversations/{id}/messages", conversation,
                               json: SendMessageRequest(clientMessageID: "a-1", text: "Hi Ada"), token: agent.token)
            // Files: sent, downloaded whole and in part, refused.
            let octets = ["Content-Type": "application/octet-stream"]
            let png = Data([0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + [UInt8](repeating: 7, count: 100))
            let file = try await api.call(201, "POST", "/v1/conversations/{id}/attachments", conversation, query: "?name=a.png&client_message_id=f-1&caption=hi",
                                          body: png, token: visitor, headers: octets).decode(SendMessageResponse.self)
            try await api.call(200, "POST", "/v1/conversations/{id}/attachments", conversation, query: "?name=a.png&client_message_id=f-1&caption=hi",
                               body: png, token: visitor, headers: octets)
            try await api.call(415, "POST", "/v1/conversations/{id}/attachments", conversation, query: "?name=a.pdf&client_message_id=f-2",
                               body: png, token: visitor, headers: octets)
            try await api.call(400, "POST", "/v1/conversations/{id}/attachments", conversation, query: "?client_message_id=f-3", body: png, token: visitor)
            let attachment = conversation.merging(["attachment": try #require(file.event.message?.attachment?.id.rawValue)]) { $1 }
            try await api.call(200, "GET", "/v1/conversations/{id}/attachments/{attachment}", attachment, token: agent.token)
            try await api.call(206, "GET", "/v1/conversations/{id}/attachments/{attachment}", attachment, token: visitor, headers: ["Range": "bytes=0-9"])
            try await api.call(416, "GET", "/v1/conversations/{id}/attachments/{attachment}", attachment, token: visitor, headers: ["Range": "bytes=500-"])
            try await api.call(404, "GET", "/v1/conversations/{id}/attachments/{attachment}", conversation.merging(["attachment": "att_nonsense"]) { $1 }, token: visitor)
            try await api.call(200, "GET", "/v1/attachments/policy", token: visitor)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/attachments", app, token: admin)
            try await api.call(200, "PUT", "/v1/admin/apps/{app}/attachments", app, json: AttachmentPolicy(maxBytes: 5 << 20), token: admin)
            try await api.call(400, "PUT", "/v1/admin/apps/{app}/attachments", app, json: AttachmentPolicy(allowedTypes: ["not a type"]), token: admin)
            try await api.call(204, "POST", "/v1/conversations/{id}/typing", conversation, json: TypingRequest(isTyping: true), token: visitor)
            try await api.call(204, "POST", "/v1/conversations/{id}/read", conversation, json: ReadRequest(seq: 3), token: visitor)
            try await api.call(409, "POST", "/v1/conversations/{id}/read", conversation, json: ReadRequest(seq: 999), token: visitor)
            try await api.call(200, "GET", "/v1/conversations/{id}/events", conversation, token: visitor)
            try await api.call(200, "GET", "/v1/conversations/{id}/events", conversation, query: "?after=2&limit=2", token: agent.token)
            try await api.call(200, "GET", "/v1/conversations/{id}/events", conversation, query: "?before=4", token: agent.token)
            try await api.call(400, "GET", "/v1/conversations/{id}/events", conversation, query: "?limit=0", token: visitor)
            try await api.call(400, "GET", "/v1/conversations/{id}/events", conversation, query: "?after=1&before=3", token: visitor)
            let note = AddNoteRequest(clientNoteID: "n-1", text: "Ships Monday")
            try await api.call(201, "POST", "/v1/conversations/{id}/notes", conversation, json: note, token: agent.token)
            try await api.call(200, "POST", "/v1/conversations/{id}/notes", conversation, json: note, token: agent.token)
            try await api.call(200, "GET", "/v1/conversations/{id}/notes", conversation, token: agent.token)
            try await api.call(404, "GET", "/v1/conversations/{id}/notes", conversation, token: visitor)
            try await api.call(200, "POST", "/v1/conversations/{id}/transfer", conversation,
                               json: TransferRequest(queueID: server.demo.queue.id), token: agent.token)
            try await api.call(200, "POST", "/v1/conversations/{id}/accept", conversation, token: agent.token)
            try await api.call(409, "POST", "/v1/conversations/{id}/transfer", conversation,
                               json: TransferRequest(agentID: server.demo.agent.id), token: agent.token)
            try await api.call(400, "POST", "/v1/conversations/{id}/transfer", conversation, json: TransferRequest(), token: agent.token)

            // What agents read about the app and its visitors.
            try await api.call(200, "GET", "/v1/team", token: agent.token)
            try await api.call(403, "GET", "/v1/team", token: visitor)
            try await api.call(200, "GET", "/v1/canned-responses", token: agent.token)
            try await api.call(200, "GET", "/v1/visitors/{visitor}", ["visitor": session.visitor.id.rawValue], token: agent.token)
            try await api.call(200, "GET", "/v1/visitors/{visitor}/conversations", ["visitor": session.visitor.id.rawValue], token: agent.token)
            try await api.call(404, "GET", "/v1/visitors/{visitor}", ["visitor": VisitorID.generate().rawValue], token: agent.token)
            try await api.call(200, "GET", "/v1/agent/me", token: agent.token)
            try await api.call(403, "GET", "/v1/agent/me", token: visitor)
            try await api.call(200, "PUT", "/v1/agent/availability", json: AvailabilityRequest(availability: .away), token: agent.token)

            // Transcripts, the end, and what the visitor answers after it.
            try await api.call(200, "GET", "/v1/conversations/{id}/transcript", conversation, token: visitor)
            try await api.call(200, "GET", "/v1/conversations/{id}/transcript", conversation, query: "?format=text&tz=Europe/Berlin&lang=de", token: agent.token)
            try await api.call(400, "GET", "/v1/conversations/{id}/transcript", conversation, query: "?format=pdf", token: visitor)
            try await api.call(409, "POST", "/v1/conversations/{id}/transcript/email", conversation,
                               json: EmailTranscriptRequest(email: "ada@example.com"), token: visitor)
            try await api.call(200, "GET", "/v1/conversations/{id}/transcript/emails", conversation, token: visitor)
            try await api.call(409, "PUT", "/v1/conversations/{id}/rating", conversation, json: RatingRequest(score: 5), token: visitor)
            try await api.call(200, "POST", "/v1/conversations/{id}/end", conversation, token: visitor)
            try await api.call(204, "GET", "/v1/conversations/{id}/rating", conversation, token: visitor)
            try await api.call(400, "PUT", "/v1/conversations/{id}/rating", conversation, json: RatingRequest(score: 9), token: visitor)
            try await api.call(200, "PUT", "/v1/conversations/{id}/rating", conversation, json: RatingRequest(score: 5, comment: "Kind"), token: visitor)
            try await api.call(200, "GET", "/v1/conversations/{id}/rating", conversation, token: agent.token)
            try await api.call(403, "PUT", "/v1/conversations/{id}/rating", conversation, json: RatingRequest(score: 1), token: agent.token)
            try await api.call(400, "PUT", "/v1/conversations/{id}/forms/post_chat", conversation,
                               json: SubmitFormRequest(answers: ["score": .integer(7)]), token: visitor)
            try await api.call(200, "PUT", "/v1/conversations/{id}/forms/post_chat", conversation,
                               json: SubmitFormRequest(answers: ["score": .integer(4)]), token: visitor)
            try await api.call(200, "GET", "/v1/conversations/{id}/forms", conversation, token: agent.token)

            // Strangers: another visitor and an agent of another app see nothing.
            let stranger = try await server.visitor("device-openapi-2").token
            try await api.call(404, "GET", "/v1/conversations/{id}", conversation, token: stranger)
            let (other, otherQueue) = try await server.otherApp()
            let outsider = try await server.agent(app: other.app.id, queues: [otherQueue.id])
            try await api.call(404, "GET", "/v1/conversations/{id}", conversation, token: outsider.token)
            try await api.call(404, "GET", "/v1/admin/apps/{app}", app, token: outsider.token)

            // The server's own routes, the desk's cookie session and logouts.
            try await api.call(200, "GET", "/metrics", token: operatorToken)
            try await api.call(403, "GET", "/metrics", token: visitor)
            try await api.call(426, "GET", "/v1/realtime", token: visitor)
            try await api.call(200, "GET", "/v1/openapi.json")
            let login = AgentLoginRequest(email: server.demo.agent.email, password: server.demo.password)
            let desk = try await api.call(200, "POST", "/v1/desk/login", json: login)
            let cookie = String(try #require(desk.headers["set-cookie"]).split(separator: ";")[0])
            try await api.call(204, "GET", "/v1/desk/session")
            try await api.call(200, "GET", "/v1/desk/session", headers: ["Cookie": cookie])
            try await api.call(403, "POST", "/v1/desk/logout", headers: ["Cookie": cookie])
            try await api.call(204, "POST", "/v1/desk/logout", headers: ["Cookie": cookie, "X-Parley-CSRF": try desk.decode(DeskSession.self).csrfToken])
            try await api.call(200, "POST", "/v1/agent/login", json: login)
            try await api.call(400, "POST", "/v1/agent/login", json: ["email": "ann@example.com"])
            try await api.call(401, "POST", "/v1/agent/login", json: AgentLoginRequest(email: "nobody@example.com", password: "wrong-password"))
            try await api.call(204, "POST", "/v1/agent/logout", token: agent.token)
            try await api.call(401, "GET", "/v1/agent/me", token: agent.token)
            let leaving = try await server.visitor("device-openapi-logout").token
            try await api.call(403, "POST", "/v1/visitor/logout", token: try await server.demoAgent().token)
            try await api.call(204, "POST", "/v1/visitor/logout", token: leaving)
            try await api.call(401, "POST", "/v1/visitor/logout", token: leaving)
            #expect(api.problems.isEmpty, "\(api.problems.joined(separator: "\n"))")
        }
    }

    @Test func theAdministrationFlows_answerAsDocumented() async throws {
        try await withServer { server in
            var api = DocumentedCalls(http: server.http, spec: spec)
            let admin = try await server.demoAgent().token
            let plain = try await server.agent().token
            let operatorToken = server.adminToken

            try await api.call(200, "GET", "/v1/admin/apps", token: operatorToken)
            try await api.call(200, "GET", "/v1/admin/apps", token: admin)
            try await api.call(403, "GET", "/v1/admin/apps", token: plain)
            try await api.call(403, "POST", "/v1/admin/apps", json: CreateAppRequest(name: "Shop"), token: admin)
            try await api.call(400, "POST", "/v1/admin/apps", json: CreateAppRequest(name: " "), token: operatorToken)
            let created = try await api.call(201, "POST", "/v1/admin/apps", json: CreateAppRequest(name: "Shop"), token: operatorToken)
                .decode(AppCredentials.self)
            let app = ["app": created.app.id.rawValue]
            try await api.call(200, "GET", "/v1/admin/apps/{app}", app, token: operatorToken)
            try await api.call(404, "GET", "/v1/admin/apps/{app}", app, token: admin)
            try await api.call(403, "GET", "/v1/admin/apps/{app}", ["app": server.appID.rawValue], token: plain)
            try await api.call(200, "PATCH", "/v1/admin/apps/{app}", app, json: CreateAppRequest(name: "Shop 2"), token: operatorToken)
            try await api.call(200, "POST", "/v1/admin/apps/{app}/rotate-key", app, token: operatorToken)
            let queue = try await api.call(201, "POST", "/v1/admin/apps/{app}/queues", app, json: QueueRequest(name: "Billing"), token: operatorToken)
                .decode(Queue.self)
            let inQueue = app.merging(["queue": queue.id.rawValue]) { $1 }
            try await api.call(200, "GET", "/v1/admin/apps/{app}/queues", app, token: operatorToken)
            try await api.call(200, "PATCH", "/v1/admin/apps/{app}/queues/{queue}", inQueue, json: QueueRequest(name: "Bills"), token: operatorToken)
            try await api.call(404, "PATCH", "/v1/admin/apps/{app}/queues/{queue}", app.merging(["queue": QueueID.generate().rawValue]) { $1 },
                               json: QueueRequest(name: "Bills"), token: operatorToken)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/ratings", app, token: operatorToken)

            let newAgent = CreateAgentRequest(name: "Cy", email: "cy@shop.example", role: .agent, queueIDs: [queue.id])
            let agent = try await api.call(201, "POST", "/v1/admin/apps/{app}/agents", app, json: newAgent, token: operatorToken).decode(CreatedAgent.self)
            let ofAgent = app.merging(["agent": agent.agent.id.rawValue]) { $1 }
            try await api.call(409, "POST", "/v1/admin/apps/{app}/agents", app, json: newAgent, token: operatorToken)
            try await api.call(400, "POST", "/v1/admin/apps/{app}/agents", app,
                               json: CreateAgentRequest(name: "Dee", email: "dee@shop.example", capacity: 1_000), token: operatorToken)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/agents", app, token: operatorToken)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/agents/{agent}", ofAgent, token: operatorToken)
            try await api.call(200, "PATCH", "/v1/admin/apps/{app}/agents/{agent}", ofAgent, json: UpdateAgentRequest(capacity: 5, isDisabled: true), token: operatorToken)
            try await api.call(200, "POST", "/v1/admin/apps/{app}/agents/{agent}/reset-password", ofAgent, token: operatorToken)

            let reply = CannedResponseRequest(shortcut: "hi", title: "Greeting", text: "Hello! How can I help?")
            let canned = try await api.call(201, "POST", "/v1/admin/apps/{app}/canned-responses", app, json: reply, token: operatorToken)
                .decode(CannedResponse.self)
            let ofCanned = app.merging(["response": canned.id.rawValue]) { $1 }
            try await api.call(409, "POST", "/v1/admin/apps/{app}/canned-responses", app, json: reply, token: operatorToken)
            try await api.call(400, "POST", "/v1/admin/apps/{app}/canned-responses", app, json: CannedResponseRequest(shortcut: "x"), token: operatorToken)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/canned-responses", app, token: operatorToken)
            try await api.call(200, "PATCH", "/v1/admin/apps/{app}/canned-responses/{response}", ofCanned,
                               json: CannedResponseRequest(title: "Hello"), token: operatorToken)
            try await api.call(204, "DELETE", "/v1/admin/apps/{app}/canned-responses/{response}", ofCanned, token: operatorToken)
            try await api.call(404, "DELETE", "/v1/admin/apps/{app}/canned-responses/{response}", ofCanned, token: operatorToken)

            try await api.call(200, "GET", "/v1/admin/apps/{app}/appearance", app, token: operatorToken)
            try await api.call(200, "PUT", "/v1/admin/apps/{app}/appearance", app, json: Appearance(
                title: "Help", welcomeMessage: ["en": "Hi!"], themeColor: "#336699", avatarURL: "https://example.com/a.png"), token: operatorToken)
            try await api.call(400, "PUT", "/v1/admin/apps/{app}/appearance", app, json: Appearance(themeColor: "blue"), token: operatorToken)
            try await api.call(204, "GET", "/v1/admin/apps/{app}/queues/{queue}/hours", inQueue, token: operatorToken)
            let hours = BusinessHours(timeZone: "Europe/Berlin", weekly: [.monday: [.hours(9, 17)]], holidays: [LocalDate("2026-12-25")!])
            try await api.call(200, "PUT", "/v1/admin/apps/{app}/queues/{queue}/hours", inQueue, json: hours, token: operatorToken)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/queues/{queue}/hours", inQueue, token: operatorToken)
            try await api.call(400, "PUT", "/v1/admin/apps/{app}/queues/{queue}/hours", inQueue,
                               json: BusinessHours(timeZone: "Mars/Olympus", weekly: [:]), token: operatorToken)
            try await api.call(204, "DELETE", "/v1/admin/apps/{app}/queues/{queue}/hours", inQueue, token: operatorToken)
            let form = Form(kind: .unavailable, fields: [FormField(key: "message", kind: .multiLine, isRequired: true, label: ["en": "Message"])])
            let ofForm = app.merging(["kind": "unavailable"]) { $1 }
            try await api.call(200, "PUT", "/v1/admin/apps/{app}/forms/{kind}", ofForm, query: "?queue=\(queue.id)", json: form, token: operatorToken)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/forms/{kind}", ofForm, query: "?queue=\(queue.id)", token: operatorToken)
            try await api.call(204, "DELETE", "/v1/admin/apps/{app}/forms/{kind}", ofForm, query: "?queue=\(queue.id)", token: operatorToken)
            try await api.call(404, "GET", "/v1/admin/apps/{app}/forms/{kind}", app.merging(["kind": "mid_chat"]) { $1 }, token: operatorToken)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/identity", app, token: operatorToken)
            try await api.call(200, "PUT", "/v1/admin/apps/{app}/identity", app,
                               json: IdentitySettings(jwksURL: "https://shop.example/jwks.json", acceptsIdentityHash: true), token: operatorToken)
            try await api.call(400, "PUT", "/v1/admin/apps/{app}/identity", ["app": server.appID.rawValue],
                               json: IdentitySettings(requiresVerification: true), token: admin)
            try await api.call(200, "GET", "/v1/admin/apps/{app}/masking", app, token: operatorToken)
            try await api.call(200, "PUT", "/v1/admin/apps/{app}/masking", app, json: MaskingRules(masksIBANs: false, customRules: [
                CustomMaskingRule(name: "Orders", pattern: #"ORD-\d{6}"#, replacement: "ORD-••••••"),
            ]), token: operatorToken)
            try await api.call(400, "PUT", "/v1/admin/apps/{app}/masking", ["app": server.appID.rawValue],
                               json: MaskingRules(customRules: [CustomMaskingRule(name: "Slow", pattern: "(a+)+b", replacement: "x")]), token: admin)
            #expect(api.problems.isEmpty, "\(api.problems.joined(separator: "\n"))")
        }
    }

    @Test func rateLimitedAnswers_areDocumented() async throws {
        try await withServer(configure: { configuration in
            var limits = RateLimits()
            limits.sessionsPerAddress = RateLimit(burst: 1, perMinute: 1)
            limits.messagesPerVisitor = RateLimit(burst: 1, perMinute: 1)
            configuration.rateLimits = limits
        }) { server in
            var api = DocumentedCalls(http: server.http, spec: spec)
            let visitor = try await server.visitor("device-limited-1").token
            try await api.call(429, "POST", "/v1/visitor/session", json: VisitorSessionRequest(appID: server.appID, deviceID: "device-limited-2"))
            let opened = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor, as: Conversation.self)
            let conversation = ["id": opened.id.rawValue]
            try await api.call(201, "POST", "/v1/conversations/{id}/messages", conversation, json: SendMessageRequest(clientMessageID: "1", text: "a"), token: visitor)
            let refused = try await api.call(429, "POST", "/v1/conversations/{id}/messages", conversation,
                                             json: SendMessageRequest(clientMessageID: "2", text: "b"), token: visitor)
            #expect(refused.headers["retry-after"] != nil)
            #expect(api.problems.isEmpty, "\(api.problems.joined(separator: "\n"))")
        }
    }
}
