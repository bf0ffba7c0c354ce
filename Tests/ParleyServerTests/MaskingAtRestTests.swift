import Foundation
import ParleyCore
import ParleyServer
import ParleyStorePostgres
import ParleyTestSupport
import Testing

/// The raw numbers a visitor and an agent send, in every field and over HTTP and the WebSocket,
/// are nowhere on the server afterwards: not in the SQLite file or its WAL, not in any PostgreSQL
/// table, not in the log (every level down to trace), not in the transcripts, not in the email.
@Suite(.timeLimit(.minutes(3)))
struct MaskingAtRestTests {
    static var stores: [String] { ["SQLite"] + (nodeTestDatabaseURL == nil ? [] : ["PostgreSQL"]) }

    /// A Luhn-valid card number of 16 digits for each place a number is sent, so a leak says where it came from.
    static func card(_ place: Int) -> String {
        let body = [4, 5] + String(format: "%02d", place).compactMap(\.wholeNumberValue) + [9, 1, 7, 3, 2, 8, 4, 6, 0, 5, 1]
        let check = (0...9).first { digit in
            let digits = body + [digit]
            let sum = digits.reversed().enumerated().reduce(0) { sum, pair in
                let doubled = pair.offset % 2 == 1 ? pair.element * 2 : pair.element
                return sum + (doubled > 9 ? doubled - 9 : doubled)
            }
            return sum % 10 == 0
        }!
        let digits = (body + [check]).map(String.init).joined()
        return stride(from: 0, to: 16, by: 4).map { String(digits.dropFirst($0).prefix(4)) }.joined(separator: " ")
    }

    static let places = [
        "session name", "session attribute", "subject", "conversation attribute", "pre-chat answer", "visitor message (HTTP)",
        "visitor message (WebSocket)", "agent reply (HTTP)", "agent reply (WebSocket)", "internal note", "post-chat answer", "rating comment",
    ]
    static let ssn = "123-45-6789"
    static let iban = "DE89 3704 0044 0532 0130 00"
    static let orderReference = "ORD-482913"

    /// What must not be found: each raw value as sent, without its separators, and the part its mask hides.
    static var raw: [(String, String)] {
        var needles: [(String, String)] = []
        for (index, place) in places.enumerated() {
            let card = card(index)
            let digits = card.filter(\.isNumber)
            needles += [(place, card), (place, digits), (place + ", hidden digits", String(digits.prefix(12)))]
        }
        needles += [("SSN", ssn), ("SSN", "123456789"), ("IBAN", iban), ("IBAN", iban.filter { $0 != " " }), ("IBAN", "3704004405320130"),
                    ("custom rule", orderReference)]
        return needles
    }

    @Test(arguments: stores)
    func rawNumbers_areNowhere_afterEveryKindOfSend(_ storeName: String) async throws {
        let log = CapturedLog()
        let smtp = try LocalSMTPServer()
        defer { smtp.stop() }
        try await smtp.start()
        var database: (configuration: PostgresStore.Configuration, drop: @Sendable () async -> Void)?
        if storeName == "PostgreSQL" {
            var fresh = try await PostgresAdmin.freshDatabase(url: try #require(nodeTestDatabaseURL))
            fresh.configuration.logger = log.logger("parley.store.postgres")
            database = fresh
        }
        let server = try await TestServer.start(
            store: try await database.asyncMap { try await PostgresStore(configuration: $0.configuration) }, logger: log.logger("parleyd")
        ) {
            $0.smtp = SMTPConfiguration(host: "127.0.0.1", port: smtp.port, security: .none, fromEmail: "support@acme.test")
            $0.mailPollInterval = 0.1
        }
        do {
            try await exercise(server, smtp: smtp, log: log, database: database?.configuration)
        } catch {
            await server.stop()
            await database?.drop()
            throw error
        }
        await server.stop()
        await database?.drop()
    }

    private func exercise(_ server: TestServer, smtp: LocalSMTPServer, log: CapturedLog, database: PostgresStore.Configuration?) async throws {
        let card = Self.card
        let app = "/v1/admin/apps/\(server.appID)"
        let rules = MaskingRules(customRules: [CustomMaskingRule(name: "Orders", pattern: #"ORD-\d{6}"#, replacement: "ORD-••••••")])
        let setRules = try await server.http.send("PUT", "\(app)/masking", rules, token: server.adminToken)
        #expect(setRules.status == 200, "\(String(decoding: setRules.body, as: UTF8.self))")
        let field = FormField(key: "account", kind: .singleLine, isRequired: false, label: ["en": "Account"])
        #expect(try await server.http.send("PUT", "\(app)/forms/pre_chat", Form(kind: .preChat, fields: [field]), token: server.adminToken).status == 200)
        #expect(try await server.http.send("PUT", "\(app)/forms/post_chat", Form(kind: .postChat, fields: [field]), token: server.adminToken).status == 200)

        // The visitor: session, opening, a message each way.
        let visitor = try await server.http.post(
            "/v1/visitor/session", VisitorSessionRequest(appID: server.appID, deviceID: "device-at-rest", name: "Vic \(card(0))",
                                                         email: "vic@example.com", attributes: ["card": card(1)]), as: VisitorSession.self)
        let conversation = try await server.http.post(
            "/v1/conversations", OpenConversationRequest(subject: "Refund \(card(2))", attributes: ["card": card(3)], formAnswers: ["account": .text(card(4))]),
            token: visitor.token, as: Conversation.self)
        let path = "/v1/conversations/\(conversation.id)"
        _ = try await server.http.post("\(path)/messages", SendMessageRequest(
            clientMessageID: "v1", text: "card \(card(5)), SSN \(Self.ssn), IBAN \(Self.iban), order \(Self.orderReference)"),
                                       token: visitor.token, as: SendMessageResponse.self)
        let visitorSocket = try await server.socket(visitor.token)
        try await visitorSocket.send(.send(.init(ref: "v2", conversationID: conversation.id, clientMessageID: "v2", text: "again: \(card(6))")))
        _ = try await visitorSocket.next { if case .ack = $0 { true } else { false } }
        await visitorSocket.close()

        // The agent: replies each way, a note, the end.
        let agent = try await server.agent(name: "Ann")
        #expect(try await server.http.request("POST", "\(path)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
        _ = try await server.http.post("\(path)/messages", SendMessageRequest(clientMessageID: "a1", text: "Noted \(card(7))"),
                                       token: agent.token, as: SendMessageResponse.self)
        let agentSocket = try await server.socket(agent.token)
        try await agentSocket.send(.send(.init(ref: "a2", conversationID: conversation.id, clientMessageID: "a2", text: "Also \(card(8))")))
        _ = try await agentSocket.next { if case .ack = $0 { true } else { false } }
        await agentSocket.close()
        _ = try await server.http.post("\(path)/notes", AddNoteRequest(clientNoteID: "n1", text: "They gave \(card(9))"), token: agent.token, as: InternalNote.self)
        #expect(try await server.http.request("POST", "\(path)/end", token: agent.token).status == 200)
        #expect(try await server.http.send("PUT", "\(path)/forms/post_chat", SubmitFormRequest(answers: ["account": .text(card(10))]),
                                           token: visitor.token).status == 200)
        #expect(try await server.http.send("PUT", "\(path)/rating", RatingRequest(score: 5, comment: "refund \(card(11))"), token: visitor.token).status == 200)

        // What everyone reads back is masked, and says so.
        let events = try await server.http.get("\(path)/events", token: visitor.token, as: EventPage.self).events.compactMap(\.message?.text)
        #expect(events.contains("card •••• •••• •••• \(card(5).suffix(4)), SSN •••-••-6789, IBAN DE•• •••• •••• •••• ••30 00, order ORD-••••••"))
        #expect(events.contains("again: •••• •••• •••• \(card(6).suffix(4))"))

        // Transcripts and the email, built from what was stored.
        let text = try await server.http.request("GET", "\(path)/transcript?format=text", token: visitor.token)
        let html = try await server.http.request("GET", "\(path)/transcript?format=html", token: agent.token)
        #expect(text.status == 200 && html.status == 200)
        #expect(try await server.http.send("POST", "\(path)/transcript/email", EmailTranscriptRequest(email: "vic@example.com"), token: visitor.token)
            .status == 202)
        _ = try await eventually(timeout: .seconds(20)) { !smtp.messages().isEmpty }
        let rawMail = try #require(smtp.messages().first, "the transcript email arrived")
        let mail = try ReceivedMail(rawMail)
        #expect(mail.text.contains("•••• •••• •••• \(card(7).suffix(4))"), "the email shows the masked text")

        let metrics = try await server.http.request("GET", "/metrics", token: server.adminToken)
        let metricsText = String(decoding: metrics.body, as: UTF8.self)
        #expect(metricsText.contains("\(ServerMetrics.Name.textsMasked) ") && !metricsText.contains("\(ServerMetrics.Name.textsMasked) 0"))

        // Where to look.
        var haystacks: [(String, Data)] = [
            ("the log (\(log.count) records)", Data(log.text.utf8)),
            ("the text transcript", text.body), ("the HTML transcript", html.body),
            ("the email as sent", Data(rawMail.utf8)), ("the email's text part", Data(mail.text.utf8)), ("the email's HTML part", Data(mail.html.utf8)),
        ]
        if let database {
            haystacks.append(("the PostgreSQL tables", Data(try await PostgresAdmin.allRowsAsText(on: database).utf8)))
        } else {
            for suffix in ["", "-wal", "-shm"] {
                let url = server.directory.appendingPathComponent("parley.sqlite" + suffix)
                if let bytes = FileManager.default.contents(atPath: url.path) { haystacks.append(("parley.sqlite\(suffix)", bytes)) }
            }
            #expect(haystacks.contains { $0.0 == "parley.sqlite-wal" }, "the WAL is searched too")
        }
        #expect(log.count > 10, "the log was captured at trace level")
        for (place, needle) in Self.raw {
            for (name, haystack) in haystacks {
                #expect(haystack.range(of: Data(needle.utf8)) == nil, "the \(place) value \"\(needle)\" is in \(name)")
            }
        }
    }

    /// On PostgreSQL with two nodes: rules changed through one node apply on the other at once
    /// (a node signal), well before the other would read them again by itself.
    @Test(.enabled(if: nodeTestDatabaseURL != nil, "set PARLEY_TEST_DATABASE_URL=postgres://… (scripts/test-postgres.sh start)"))
    func rulesChangedOnOneNode_applyOnTheOther() async throws {
        try await withTwoNodes { one, two, _ in
            let visitor = try await two.visitor()
            let conversation = try await two.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let send = { (id: String) in
                try await two.http.post("/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: id, text: "ORD-123456"),
                                        token: visitor.token, as: SendMessageResponse.self).event.message?.text
            }
            #expect(try await send("before") == "ORD-123456", "node two now holds the defaults")
            let rules = MaskingRules(customRules: [CustomMaskingRule(name: "Orders", pattern: #"ORD-\d{6}"#, replacement: "ORD-••••••")])
            // Node two would read the rules again by itself only after 30 s. Its LISTEN starts in the
            // background, so the change is made again each second until one signal is heard.
            var limit = WaitLimit(.seconds(10))
            var attempt = 0
            var isMasked = false
            while true {
                if attempt % 20 == 0 {
                    #expect(try await one.http.send("PUT", "/v1/admin/apps/\(one.appID)/masking", rules, token: one.adminToken).status == 200)
                }
                attempt += 1
                isMasked = try await send("after-\(attempt)") == "ORD-••••••"
                if isMasked || limit.isSpent() { break }
                try await Task.sleep(for: .milliseconds(50))
            }
            #expect(isMasked, "node two heard of the change")
        }
    }
}

extension Optional {
    /// The wrapped value transformed by an async function, or nil.
    func asyncMap<T>(_ transform: (Wrapped) async throws -> T) async rethrows -> T? {
        guard let self else { return nil }
        return try await transform(self)
    }
}
