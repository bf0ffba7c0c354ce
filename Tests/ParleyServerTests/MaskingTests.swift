import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// Masking on the server: the shared table through a real server's send path (HTTP and WebSocket),
/// the settings an admin sets and a visitor reads, and bad rules refused with nothing changed.
@Suite(.timeLimit(.minutes(3)))
struct MaskingTests {
    /// Every row of the shared table, sent by a visitor with no masking of its own (the API, the
    /// desk): what the server stores, answers and delivers is the row's expected text.
    @Test func sharedTable_storedMasked_overHTTPAndWebSocket() async throws {
        try await withServer { server in
            let groups = Dictionary(grouping: MaskingCases.all, by: \.rules)
            for (rules, rows) in groups {
                let set = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/masking", rules, token: server.adminToken)
                #expect(set.status == 200)
                let visitor = try await server.visitor()
                let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
                let socket = try await server.socket(visitor.token)
                for (index, row) in rows.enumerated() {
                    let sent = try await server.http.post(
                        "/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "http-\(index)", text: row.input),
                        token: visitor.token, as: SendMessageResponse.self)
                    #expect(sent.event.message?.text == row.expected, "HTTP: \(row.name)")
                    try await socket.send(.send(.init(ref: "ws-\(index)", conversationID: conversation.id, clientMessageID: "ws-\(index)", text: row.input)))
                    let ack = try await socket.next { if case .ack(let ack) = $0 { ack.ref == "ws-\(index)" } else { false } }
                    guard case .ack(let acked) = ack else { continue }
                    #expect(acked.event.message?.text == row.expected, "WebSocket: \(row.name)")
                }
                await socket.close()
                let page = try await server.http.get("/v1/conversations/\(conversation.id)/events?limit=500", token: visitor.token, as: EventPage.self)
                let stored = page.events.compactMap(\.message?.text)
                #expect(stored.count == rows.count * 2)
                #expect(Set(stored) == Set(rows.map(\.expected)), "history holds only the masked texts")
                // Sending the same message again is a duplicate, not a conflict: the same text masks the same way.
                if let row = rows.first {
                    let again = try await server.http.send(
                        "POST", "/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "http-0", text: row.input),
                        token: visitor.token)
                    #expect(try again.status == 200 && again.decode(SendMessageResponse.self).duplicate)
                }
            }
        }
    }

    @Test func settings_defaultsUntilSet_readableByTheAppsVisitorsAndAgents() async throws {
        try await withServer { server in
            let admin = "/v1/admin/apps/\(server.appID)/masking"
            let visitor = try await server.visitor()
            let agent = try await server.agent()
            #expect(try await server.http.get(admin, token: server.adminToken, as: MaskingRules.self) == .defaults)
            #expect(try await server.http.get("/v1/masking", token: visitor.token, as: MaskingRules.self) == .defaults)

            let rules = MaskingRules(masksIBANs: false, customRules: [CustomMaskingRule(name: "Orders", pattern: #"ORD-\d{6}"#, replacement: "ORD-••••••")])
            let set = try await server.http.send("PUT", admin, rules, token: server.adminToken)
            #expect(try set.status == 200 && set.decode(MaskingRules.self) == rules)
            #expect(try await server.http.get(admin, token: server.adminToken, as: MaskingRules.self) == rules)
            #expect(try await server.http.get("/v1/masking", token: visitor.token, as: MaskingRules.self) == rules)
            #expect(try await server.http.get("/v1/masking", token: agent.token, as: MaskingRules.self) == rules)

            // A plain agent may read what is masked, not change it; another app's admin sees nothing of this app.
            #expect(try await server.http.send("PUT", admin, MaskingRules.defaults, token: agent.token).status == 403)
            let (other, _) = try await server.otherApp()
            let otherAdmin = try await server.agent(app: other.app.id, role: .admin)
            #expect(try await server.http.request("GET", admin, token: otherAdmin.token).status == 404)
            #expect(try await server.http.get("/v1/masking", token: try await server.visitor(app: other.app.id).token, as: MaskingRules.self) == .defaults)
            #expect(try await server.http.request("GET", "/v1/masking").status == 401)

            // The new rules apply to the next message at once.
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let sent = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                                  SendMessageRequest(clientMessageID: "1", text: "ORD-123456, DE89370400440532013000"),
                                                  token: visitor.token, as: SendMessageResponse.self)
            #expect(sent.event.message?.text == "ORD-••••••, DE89370400440532013000", "IBANs are off now")
        }
    }

    /// A bad rule is a 400 with the one JSON error body naming the field, and the rules before it stay.
    @Test(arguments: [
        (#"{"custom":[{"name":"Broken","pattern":"(","replacement":"x"}]}"#, "custom[0].pattern"),
        (#"{"custom":[{"name":"Slow","pattern":"(a+)+b","replacement":"x"}]}"#, "custom[0].pattern"),
        (#"{"custom":[{"name":"Slow","pattern":"\\d+\\d+\\d+x","replacement":"x"}]}"#, "custom[0].pattern"),
        (#"{"custom":[{"name":"Echo","pattern":"(\\w)\\1","replacement":"x"}]}"#, "custom[0].pattern"),
        (#"{"custom":[{"name":"Empty","pattern":"a*","replacement":"x"}]}"#, "custom[0].pattern"),
        (#"{"custom":[{"name":"","pattern":"a","replacement":"x"}]}"#, "custom[0].name"),
        (#"{"custom":[{"name":"A","pattern":"a","replacement":"two\nlines"}]}"#, "custom[0].replacement"),
        (#"{"card_numbers":"yes"}"#, "card_numbers"),
        (#"{"custom":[{"name":"A"}]}"#, "custom"),
    ])
    func badRules_400_namingTheField_nothingChanged(_ body: String, _ field: String) async throws {
        try await withServer { server in
            let path = "/v1/admin/apps/\(server.appID)/masking"
            let before = MaskingRules(customRules: [CustomMaskingRule(name: "Orders", pattern: #"ORD-\d{6}"#, replacement: "ORD-••••••")])
            #expect(try await server.http.send("PUT", path, before, token: server.adminToken).status == 200)
            let reply = try await server.http.request("PUT", path, body: Data(body.utf8), token: server.adminToken)
            #expect(reply.status == 400)
            let error = try #require(reply.error)
            #expect(error.error.code == "bad_request" && error.error.message.contains(field), "\(error.error.message)")
            #expect(try await server.http.get(path, token: server.adminToken, as: MaskingRules.self) == before)
        }
    }

    /// What a visitor or an agent writes anywhere else (subjects, attributes, form answers, their
    /// name, rating comments, internal notes) is masked too.
    @Test func everyTextField_isMasked() async throws {
        try await withServer { server in
            let app = "/v1/admin/apps/\(server.appID)"
            let field = FormField(key: "account", kind: .singleLine, isRequired: false, label: ["en": "Account"])
            #expect(try await server.http.send("PUT", "\(app)/forms/pre_chat", Form(kind: .preChat, fields: [field]), token: server.adminToken).status == 200)
            #expect(try await server.http.send("PUT", "\(app)/forms/post_chat", Form(kind: .postChat, fields: [field]), token: server.adminToken).status == 200)
            let card = "4111 1111 1111 1111", masked = "•••• •••• •••• 1111"
            let visitor = try await server.http.post(
                "/v1/visitor/session",
                VisitorSessionRequest(appID: server.appID, deviceID: "device-masking-1", name: "Vic \(card)", email: "vic@example.com",
                                      attributes: ["card": card]), as: VisitorSession.self)
            #expect(visitor.visitor.name == "Vic \(masked)" && visitor.visitor.attributes["card"] == masked && visitor.visitor.email == "vic@example.com")

            let opened = try await server.http.post(
                "/v1/conversations", OpenConversationRequest(subject: "Refund \(card)", attributes: ["iban": "DE89 3704 0044 0532 0130 00"],
                                                             formAnswers: ["account": .text(card)]), token: visitor.token, as: Conversation.self)
            #expect(opened.subject == "Refund \(masked)" && opened.attributes["iban"] == "DE•• •••• •••• •••• ••30 00")
            let agent = try await server.agent()
            #expect(try await server.http.request("POST", "/v1/conversations/\(opened.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
            let reply = try await server.http.post("/v1/conversations/\(opened.id)/messages", SendMessageRequest(clientMessageID: "a1", text: "Got \(card)"),
                                                   token: agent.token, as: SendMessageResponse.self)
            #expect(reply.event.message?.text == "Got \(masked)", "agents' messages too")
            let note = try await server.http.post("/v1/conversations/\(opened.id)/notes", AddNoteRequest(clientNoteID: "n1", text: "card \(card)"),
                                                  token: agent.token, as: InternalNote.self)
            #expect(note.text == "card \(masked)", "internal notes too")
            #expect(try await server.http.request("POST", "/v1/conversations/\(opened.id)/end", token: agent.token).status == 200)
            let postChat = try await server.http.send("PUT", "/v1/conversations/\(opened.id)/forms/post_chat", SubmitFormRequest(answers: ["account": .text(card)]),
                                                      token: visitor.token)
            #expect(try postChat.decode(FormSubmission.self).answers["account"] == .text(masked))
            let rating = try await server.http.send("PUT", "/v1/conversations/\(opened.id)/rating", RatingRequest(score: 5, comment: "refund to \(card)"),
                                                    token: visitor.token)
            #expect(try rating.decode(Rating.self).comment == "refund to \(masked)")
            let forms = try await server.http.get("/v1/conversations/\(opened.id)/forms", token: agent.token, as: FormSubmissionList.self)
            #expect(forms.submissions.map { $0.answers["account"] } == [.text(masked), .text(masked)])
        }
    }
}
