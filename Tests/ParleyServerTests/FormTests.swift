import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// Forms on the server: admins define them, visitors answer them when a conversation opens
/// (pre-chat, or unavailable for an offline conversation) and after it ends (post-chat), with the
/// one set of validation rules ParleyKit uses too; agents read the answers.
@Suite(.timeLimit(.minutes(3)))
struct FormTests {
    static func form(_ kind: Form.Kind, _ fields: [FormField]) -> Form { Form(kind: kind, fields: fields) }
    static let email = FormField(key: "email", kind: .email, isRequired: true, label: ["en": "Email", "de": "E-Mail"])
    static let topic = FormField(key: "topic", kind: .select, isRequired: true, label: ["en": "Topic"],
                                 options: [.init(value: "billing", label: ["en": "Billing"]), .init(value: "tech", label: ["en": "Technical"])])

    @Test func sharedFieldTable_throughTheServer_agreesCaseByCase() async throws {
        try await withServer { server in
            let formPath = "/v1/admin/apps/\(server.appID)/forms/pre_chat"
            let visitor = try await server.visitor()
            for row in FieldValidationCases.all {
                let defined = try await server.http.send("PUT", formPath, Self.form(.preChat, [row.field]), token: server.adminToken)
                try #require(defined.status == 200, "\(row): form refused: \(String(decoding: defined.body, as: UTF8.self))")
                var answers = FormAnswers()
                answers[row.field.key] = row.input
                let opened = try await server.http.send("POST", "/v1/conversations", OpenConversationRequest(formAnswers: answers), token: visitor.token)
                switch row.expected {
                case .value, .noAnswer:
                    #expect(opened.status == 201, "\(row): \(String(decoding: opened.body, as: UTF8.self))")
                    guard opened.status == 201 else { continue }
                    let conversation = try opened.decode(Conversation.self)
                    let stored = try await server.http.get("/v1/conversations/\(conversation.id)/forms", token: visitor.token, as: FormSubmissionList.self)
                    let expected: [String: FormValue] = if case .value(let value) = row.expected { [row.field.key: value] } else { [:] }
                    #expect(stored.submissions.map(\.answers) == [expected], "\(row)")
                    #expect(stored.submissions.map(\.kind) == [.preChat])
                case .error(let code):
                    #expect(opened.status == 400, "\(row): \(opened.status)")
                    #expect(opened.error?.error.code == "invalid_form")
                    #expect(opened.error?.error.fields == [.init(key: row.field.key, code: code)], "\(row)")
                }
            }
        }
    }

    @Test func definitions_checkedByAdmins_queueFormOverridesTheAppsOwn() async throws {
        try await withServer { server in
            let base = "/v1/admin/apps/\(server.appID)/forms"
            let visitor = try await server.visitor()
            #expect(try await server.http.get("/v1/forms", token: visitor.token, as: FormSet.self) == FormSet())

            let duplicate = Self.form(.preChat, [Self.email, Self.email])
            #expect(try await server.http.send("PUT", "\(base)/pre_chat", duplicate, token: server.adminToken).status == 400)
            let noOptions = Self.form(.preChat, [FormField(key: "topic", kind: .select, label: ["en": "Topic"])])
            #expect(try await server.http.send("PUT", "\(base)/pre_chat", noOptions, token: server.adminToken).status == 400)
            #expect(try await server.http.send("PUT", "\(base)/post_chat", Self.form(.preChat, [Self.email]), token: server.adminToken).status == 400,
                    "kind must match the path")
            #expect(try await server.http.send("PUT", "\(base)/sideways", Self.form(.preChat, [Self.email]), token: server.adminToken).status == 404)
            let agent = try await server.agent()
            #expect(try await server.http.send("PUT", "\(base)/pre_chat", Self.form(.preChat, [Self.email]), token: agent.token).status == 403)
            #expect(try await server.http.get("/v1/forms", token: visitor.token, as: FormSet.self) == FormSet(), "nothing stored")

            let appWide = Self.form(.preChat, [Self.email])
            #expect(try await server.http.send("PUT", "\(base)/pre_chat", appWide, token: server.adminToken).status == 200)
            let queue = server.demo.queue.id
            var queueForm = Self.form(.preChat, [Self.topic])
            #expect(try await server.http.send("PUT", "\(base)/pre_chat?queue=\(queue)", queueForm, token: server.adminToken).status == 200)
            queueForm.queueID = queue
            #expect(try await server.http.get("/v1/forms?queue=\(queue)", token: visitor.token, as: FormSet.self).preChat == queueForm)
            #expect(try await server.http.request("DELETE", "\(base)/pre_chat?queue=\(queue)", token: server.adminToken).status == 204)
            #expect(try await server.http.get("/v1/forms", token: visitor.token, as: FormSet.self).preChat == appWide, "back to the app's own")
        }
    }

    @Test func preChatRequired_answersStoredAndShownToAgents_postChatAfterTheEnd() async throws {
        try await withServer { server in
            let base = "/v1/admin/apps/\(server.appID)/forms"
            #expect(try await server.http.send("PUT", "\(base)/pre_chat", Self.form(.preChat, [Self.email, Self.topic]), token: server.adminToken).status == 200)
            let rating = FormField(key: "score", kind: .rating, isRequired: true, label: ["en": "How did we do?"])
            #expect(try await server.http.send("PUT", "\(base)/post_chat", Self.form(.postChat, [rating]), token: server.adminToken).status == 200)
            let visitor = try await server.visitor()

            let missing = try await server.http.send("POST", "/v1/conversations", OpenConversationRequest(), token: visitor.token)
            #expect(missing.status == 400)
            #expect(missing.error?.error.fields == [.init(key: "email", code: .required), .init(key: "topic", code: .required)])
            let list = try await server.http.get("/v1/conversations", token: visitor.token, as: ConversationList.self)
            #expect(list.conversations.isEmpty, "a refused form opens nothing")

            let answers: FormAnswers = ["email": .text("Ann@Example.COM"), "topic": .text("tech")]
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(formAnswers: answers),
                                                          token: visitor.token, as: Conversation.self)
            let agent = try await server.agent()
            let seen = try await server.http.get("/v1/conversations/\(conversation.id)/forms", token: agent.token, as: FormSubmissionList.self)
            #expect(seen.submissions.map(\.answers) == [["email": .text("Ann@example.com"), "topic": .text("tech")]])

            let postPath = "/v1/conversations/\(conversation.id)/forms/post_chat"
            #expect(try await server.http.send("PUT", postPath, SubmitFormRequest(answers: ["score": .integer(5)]), token: visitor.token).status == 409,
                    "not ended yet")
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
            #expect(try await server.http.request("POST", "/v1/conversations/\(conversation.id)/end", token: agent.token).status == 200)
            let bad = try await server.http.send("PUT", postPath, SubmitFormRequest(answers: ["score": .integer(9)]), token: visitor.token)
            #expect(bad.status == 400 && bad.error?.error.fields == [.init(key: "score", code: .outOfRange)])
            #expect(try await server.http.send("PUT", postPath, SubmitFormRequest(answers: ["score": .integer(4)]), token: agent.token).status == 403)
            let desk = try await server.socket(agent.token)
            #expect(try await server.http.send("PUT", postPath, SubmitFormRequest(answers: ["score": .integer(4)]), token: visitor.token).status == 200)
            let all = try await server.http.get("/v1/conversations/\(conversation.id)/forms", token: agent.token, as: FormSubmissionList.self)
            #expect(all.submissions.map(\.kind) == [.preChat, .postChat])
            #expect(all.submissions.last?.answers == ["score": .integer(4)])
            // The agent's desk got the answers as they were stored.
            let live = try await desk.next { if case .answers = $0 { true } else { false } }
            #expect(live == .answers(ConversationAnswers(conversationID: conversation.id, rating: nil, formSubmissions: all.submissions)))
            await desk.close()
            let stranger = try await server.visitor()
            #expect(try await server.http.request("GET", "/v1/conversations/\(conversation.id)/forms", token: stranger.token).status == 404)
        }
    }
}
