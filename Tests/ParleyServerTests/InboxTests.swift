import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// Agents' inbox over HTTP and the socket: views with triage, history paged without a cap, counts,
/// triage changes told live to agents only, and the app's tag list.
@Suite(.timeLimit(.minutes(2)))
struct InboxTests {
    @Test(arguments: TestStore.available)
    func history_isPagedForEveryAgent_withTriage_neverCapped(_ store: TestStore) async throws {
        try await withServer(on: store) { server in
            let admin = try await server.demoAgent()
            let plain = try await server.agent(name: "Plain")
            var ended: [ConversationID] = []
            for index in 0..<5 {
                let visitor = try await server.visitor(name: "V\(index)")
                let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
                _ = try await server.http.post("/v1/conversations/\(conversation.id)/end", [String: String](), token: visitor.token, as: Conversation.self)
                ended.append(conversation.id)
            }
            var seen: [ConversationID] = []
            var cursor: String?
            repeat {
                let page = try await server.http.get("/v1/conversations?view=ended&limit=2" + (cursor.map { "&cursor=\($0)" } ?? ""), token: plain.token,
                                                     as: ConversationList.self)
                #expect(page.conversations.count <= 2 && page.triage?.map(\.conversationID) == page.conversations.map(\.id))
                #expect(page.conversations.allSatisfy { $0.state == .ended })
                seen += page.conversations.map(\.id)
                cursor = page.nextCursor
            } while cursor != nil
            #expect(seen == ended.reversed(), "every ended conversation once, newest first")
            #expect(try await server.http.request("GET", "/v1/conversations?view=ended&cursor=bzo0", token: admin.token).status == 400,
                    "an open view's cursor does not page history")
        }
    }

    @Test func triage_reachesAgentsLiveNotVisitors_andIsRefusedClearly() async throws {
        try await withServer { server in
            let agent = try await server.demoAgent()
            let visitor = try await server.visitor(name: "Ada")
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/tags",
                                           TagList(tags: [TagDefinition(name: "vip", color: "#aa0000"), TagDefinition(name: "billing", color: "#00aa00")]),
                                           token: server.adminToken)
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let path = "/v1/conversations/\(conversation.id)/triage"
            let agentSocket = try await server.socket(agent.token)
            let visitorSocket = try await server.socket(visitor.token)
            try await visitorSocket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            _ = try await visitorSocket.next { if case .subscribed = $0 { true } else { false } }

            let tagged = try await server.http.send("PUT", path, TriageUpdate(tags: ["vip"], priority: .urgent), token: agent.token).decode(Triage.self)
            #expect(tagged.tags == ["vip"] && tagged.priority == .urgent && tagged.updatedBy?.id == agent.agent.id.rawValue)
            let live = try await agentSocket.next { if case .triage = $0 { true } else { false } }
            #expect(live == .triage(tagged))
            #expect(try await server.http.get(path, token: agent.token, as: Triage.self) == tagged)

            for (body, status, message) in [
                (#"{"tags":["gold"]}"#, 400, "tags: gold is not one of the app's tags"),
                (#"{"priority":"meh"}"#, 400, nil),
                (#"{"snoozed_until":"2001-01-01T00:00:00.000Z"}"#, 400, "snoozed_until: must be in the future"),
                (#"{"snoozed_until":"2100-01-01T00:00:00.000Z"}"#, 409, "only an assigned conversation can be snoozed; this one is queued"),
            ] as [(String, Int, String?)] {
                let response = try await server.http.request("PUT", path, body: Data(body.utf8), token: agent.token)
                #expect(response.status == status, "\(body)")
                if let message { #expect(try response.decode(ErrorBody.self).error.message == message) }
            }
            #expect(try await server.http.get(path, token: agent.token, as: Triage.self) == tagged, "refusals change nothing")

            // Assigned, it may be snoozed: it leaves Mine for Snoozed, and the counts say so. The
            // visitor wrote before the snooze and nobody answered.
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "first", text: "Hello?"),
                                           token: visitor.token, as: SendMessageResponse.self)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/accept", [String: String](), token: agent.token, as: Conversation.self)
            let until = Date().addingTimeInterval(3_600)
            #expect(try await server.http.send("PUT", path, TriageUpdate(snoozedUntil: .some(until)), token: agent.token).status == 200)
            #expect(try await server.http.get("/v1/conversations?view=mine", token: agent.token, as: ConversationList.self).conversations.isEmpty)
            #expect(try await server.http.get("/v1/conversations?view=snoozed", token: agent.token, as: ConversationList.self).conversations.map(\.id)
                    == [conversation.id])
            let counts = try await server.http.get("/v1/desk/counts", token: agent.token, as: InboxCounts.self)
            #expect(counts.mine == 0 && counts.snoozed == 1 && counts.nextWake == Timestamp.date(millis: Timestamp.millis(until)))
            // The visitor writes: the snooze gives way.
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "m", text: "Still there?"),
                                           token: visitor.token, as: SendMessageResponse.self)
            #expect(try await server.http.get("/v1/conversations?view=mine", token: agent.token, as: ConversationList.self).conversations.map(\.id)
                    == [conversation.id])

            // The visitor never saw a triage frame (the message's echo is the barrier), and may not read it.
            _ = try await visitorSocket.nextEvent(in: conversation.id) { $0.message?.text == "Still there?" }
            #expect(!visitorSocket.buffer.pending.contains { if case .triage = $0 { true } else { false } })
            #expect(try await server.http.request("GET", path, token: visitor.token).status == 404)
            #expect(try await server.http.request("PUT", path, body: Data(#"{"priority":"low"}"#.utf8), token: visitor.token).status == 404)
            let visitorList = try await server.http.request("GET", "/v1/conversations", token: visitor.token)
            #expect(!String(decoding: visitorList.body, as: UTF8.self).contains("triage"))
            await agentSocket.close()
            await visitorSocket.close()
        }
    }

    @Test func aVisitorWritingInAQueuedConversation_tellsEveryDesk() async throws {
        try await withServer { server in
            try await expectQueuedWritingReachesTheDesk(writer: server, desk: server)
        }
    }

    @Test func tags_areCheckedByTheAdmin_andReadByAgents() async throws {
        try await withServer { server in
            let agent = try await server.demoAgent()
            let path = "/v1/admin/apps/\(server.appID)/tags"
            for (tags, message) in [
                ([TagDefinition(name: "", color: "#000000")], "tags[0].name: 1 to 40 letters, digits, spaces, - or _, no space at either end"),
                ([TagDefinition(name: "a<b", color: "#000000")], "tags[0].name: 1 to 40 letters, digits, spaces, - or _, no space at either end"),
                ([TagDefinition(name: "VIP", color: "#000000"), TagDefinition(name: "vip", color: "#000000")], "tags[1].name: vip is listed twice"),
                ([TagDefinition(name: "ok", color: "red")], "tags[0].color: #rrggbb"),
            ] {
                let response = try await server.http.send("PUT", path, TagList(tags: tags), token: server.adminToken)
                #expect(response.status == 400)
                #expect(try response.decode(ErrorBody.self).error.message == message)
            }
            let list = TagList(tags: [TagDefinition(name: "Needs follow-up", color: "#112233")])
            let desk = try await server.socket(agent.token)
            _ = try await server.http.send("PUT", path, list, token: server.adminToken)
            // Every desk of the app learns the new list at once.
            #expect(try await desk.next { if case .tags = $0 { true } else { false } } == .tags(list))
            await desk.close()
            #expect(try await server.http.get("/v1/tags", token: agent.token, as: TagList.self) == list)
            #expect(try await server.http.get(path, token: server.adminToken, as: TagList.self) == list)
        }
    }
}
