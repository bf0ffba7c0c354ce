import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// Callback requests end to end over HTTP and the realtime socket, on SQLite and (with
/// `PARLEY_TEST_DATABASE_URL`) PostgreSQL: routing offers a request when an agent is ready, the
/// visitor confirms, snoozes or cancels, offers expire on the server's manual clock, and the agent
/// records the outcome. Serialized: each PostgreSQL case holds a server's pool.
@Suite(.serialized, .timeLimit(.minutes(3)))
struct CallbackTests {
    /// A visitor with a socket subscribed to nothing yet.
    struct Visitor {
        var session: VisitorSession
        var socket: TestSocket
        var token: String { session.token }
    }

    func visitor(_ server: TestServer, name: String = "Visitor") async throws -> Visitor {
        let session = try await server.visitor(name: name)
        return Visitor(session: session, socket: try await server.socket(session.token))
    }

    /// Asks for a callback and subscribes the visitor's socket to its conversation.
    func request(_ server: TestServer, _ visitor: Visitor, _ body: RequestCallbackRequest) async throws -> CallbackView {
        let reply = try await server.http.send("POST", "/v1/callbacks", body, token: visitor.token)
        guard reply.status == 201 else { throw TestFailure("POST /v1/callbacks → \(reply.status): \(String(decoding: reply.body, as: UTF8.self))") }
        let view = try reply.decode(CallbackView.self)
        try await visitor.socket.send(.subscribe(.init(conversationID: view.conversation.id, afterSeq: 0)))
        return view
    }

    func perform(_ server: TestServer, _ action: String, _ id: CallbackID, by visitor: Visitor) async throws -> TestHTTP.Reply {
        try await server.http.request("POST", "/v1/callbacks/\(id)/actions/\(action)", token: visitor.token)
    }

    /// An online agent with a connected socket.
    func onlineAgent(_ server: TestServer, name: String = "Agent", capacity: Int = 1) async throws -> (session: AgentSession, socket: TestSocket) {
        let session = try await server.agent(name: name, capacity: capacity)
        let socket = try await server.socket(session.token)
        _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: session.token)
        return (session, socket)
    }

    /// The next `callback` event of the visitor's request with this action.
    func next(_ action: CallbackChange.Action, _ view: CallbackView, at visitor: Visitor) async throws -> Callback {
        let event = try await visitor.socket.nextEvent(in: view.conversation.id) {
            if case .callback(let change) = $0.body { change.action == action } else { false }
        }
        guard case .callback(let change) = event.body else { throw TestFailure("unreachable") }
        return change.callback
    }

    func callback(_ server: TestServer, _ view: CallbackView, by visitor: Visitor) async throws -> CallbackView {
        try await server.http.get("/v1/callbacks/\(view.callback.id)", token: visitor.token, as: CallbackView.self)
    }

    // MARK: Kinds

    @Test(arguments: TestStore.available)
    func callMe_offeredConfirmed_noAnswerRescheduled_thenDone(_ store: TestStore) async throws {
        let clock = ManualClock(start: Date())
        try await withServer(on: store, configure: { $0.clock = clock }) { server in
            let visitor = try await visitor(server)
            // A number that cannot be called is refused, and nothing is stored.
            let bad = try await server.http.send("POST", "/v1/callbacks", RequestCallbackRequest(kind: .callMe, phone: "12"), token: visitor.token)
            #expect(bad.status == 400 && bad.error?.error.code == "invalid_phone")
            let none = try await server.http.get("/v1/conversations", token: visitor.token, as: ConversationList.self)
            #expect(none.conversations.isEmpty)

            let view = try await request(server, visitor, RequestCallbackRequest(kind: .callMe, phone: "030 901820", defaultCallingCode: "49", subject: "Invoice"))
            #expect(view.callback.phone == "+4930901820" && view.callback.status == .waiting && view.callback.id == CallbackID(conversation: view.conversation.id))
            #expect(view.conversation.queuePosition == 1 && view.conversation.state == .queued)
            guard case .confirmation = view.dialog.content else { throw TestFailure("waiting shows a note, not \(view.dialog)") }

            let (agent, agentSocket) = try await onlineAgent(server)
            let offered = try await next(.offered, view, at: visitor)
            #expect(offered.status == .offered && offered.agentID == agent.agent.id)
            #expect(offered.expiresAt == Timestamp.date(millis: Timestamp.millis(clock.now().addingTimeInterval(60))))
            let menu = try await server.http.get("/v1/callbacks/\(view.callback.id)/dialog", token: visitor.token, as: CallbackDialog.self)
            guard case .menu(_, let groups) = menu.content else { throw TestFailure("an offer shows the menu, not \(menu)") }
            #expect(groups.flatMap(\.items).map(\.action) == [.confirm, .snooze, .cancel])
            #expect(menu.expiresAt == offered.expiresAt)

            let confirmed = try await perform(server, "confirm", view.callback.id, by: visitor)
            #expect(confirmed.status == 200)
            guard case .confirmation(let text, _) = try confirmed.decode(CallbackDialog.self).content else { throw TestFailure("call me shows a note") }
            #expect(text == CallbackDialogTexts().callingYou)
            let joined = try await visitor.socket.nextEvent(in: view.conversation.id) { if case .participantJoined = $0.body { true } else { false } }
            #expect(joined.author.id == agent.agent.id.rawValue)

            // The agent desk sees the number; no answer: try again in an hour.
            let seen = try await server.http.get("/v1/conversations/\(view.conversation.id)", token: agent.token, as: Conversation.self)
            #expect(seen.callback?.phone == "+4930901820" && seen.callback?.status == .connecting)
            let retry = clock.now().addingTimeInterval(3_600)
            let rescheduled = try await server.http.post("/v1/conversations/\(view.conversation.id)/callback/outcome",
                                                         CallbackOutcomeRequest(outcome: .noAnswer, retryAt: retry), token: agent.token, as: Conversation.self)
            #expect(rescheduled.callback?.status == .scheduled && rescheduled.callback?.outcome == .noAnswer && rescheduled.state == .queued)
            // Only the agent working on it records an outcome.
            let other = try await server.agent(name: "Other")
            let refused = try await server.http.send("POST", "/v1/conversations/\(view.conversation.id)/callback/outcome",
                                                     CallbackOutcomeRequest(outcome: .done), token: other.token)
            #expect(refused.status == 409)

            // Its time comes: it waits again and the agent (free now) gets it offered at once.
            clock.advance(by: 3_601)
            _ = try await next(.due, view, at: visitor)
            _ = try await next(.offered, view, at: visitor)
            #expect(try await perform(server, "confirm", view.callback.id, by: visitor).status == 200)
            _ = try await next(.confirmed, view, at: visitor)
            let done = try await server.http.post("/v1/conversations/\(view.conversation.id)/callback/outcome",
                                                  CallbackOutcomeRequest(outcome: .connected), token: agent.token, as: Conversation.self)
            #expect(done.state == .ended && done.callback?.status == .ended && done.callback?.endReason == .completed && done.callback?.outcome == .connected)
            let history = try await server.http.get("/v1/conversations/\(view.conversation.id)/events?after=0", token: visitor.token, as: EventPage.self)
            let actions = history.events.compactMap { event -> CallbackChange.Action? in
                if case .callback(let change) = event.body { change.action } else { nil }
            }
            #expect(actions == [.requested, .offered, .confirmed, .rescheduled, .due, .offered, .confirmed, .completed])
            // Once it ended, every choice is refused and changes nothing.
            let late = try await perform(server, "snooze", view.callback.id, by: visitor)
            #expect(late.status == 409 && late.error?.error.code == "invalid_state")
            await visitor.socket.close()
            await agentSocket.close()
        }
    }

    @Test(arguments: TestStore.available)
    func iWillCall_needsTheQueuesNumber_andShowsItWithTheCode(_ store: TestStore) async throws {
        try await withServer(on: store, configure: { _ in }) { server in
            let visitor = try await visitor(server)
            let refused = try await server.http.send("POST", "/v1/callbacks", RequestCallbackRequest(kind: .iWillCall), token: visitor.token)
            #expect(refused.status == 409 && refused.error?.error.code == "no_dial_number")
            var settings = CallbackSettings.standard
            settings.dialNumber = "0049 30"
            let badSettings = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/queues/\(server.demo.queue.id)/callbacks", settings, token: server.adminToken)
            #expect(badSettings.status == 400)
            settings.dialNumber = "+4930901820"
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/queues/\(server.demo.queue.id)/callbacks", settings, token: server.adminToken)

            let view = try await request(server, visitor, RequestCallbackRequest(kind: .iWillCall, language: "de"))
            #expect(view.callback.dialNumber == "+4930901820" && view.callback.accessCode?.count == 6)
            let (_, agentSocket) = try await onlineAgent(server)
            _ = try await next(.offered, view, at: visitor)
            let menu = try await server.http.get("/v1/callbacks/\(view.callback.id)/dialog", token: visitor.token, as: CallbackDialog.self)
            guard case .menu(let label, _) = menu.content else { throw TestFailure("an offer shows the menu") }
            #expect(label == CallbackDialogTexts.standard(for: "de").offer, "in the visitor's language")
            let dialog = try await perform(server, "confirm", view.callback.id, by: visitor).decode(CallbackDialog.self)
            guard case .dialNumber(_, let tel, let code) = dialog.content else { throw TestFailure("I will call shows the number, not \(dialog)") }
            #expect(tel == "tel:+4930901820" && code == view.callback.accessCode)
            await visitor.socket.close()
            await agentSocket.close()
        }
    }

    @Test(arguments: TestStore.available)
    func notifyAndChat_confirmedOpensTheChatWithTheReadyAgent(_ store: TestStore) async throws {
        try await withServer(on: store, configure: { _ in }) { server in
            let visitor = try await visitor(server)
            let view = try await request(server, visitor, RequestCallbackRequest(kind: .notifyAndChat, subject: "Delivery"))
            let (agent, agentSocket) = try await onlineAgent(server)
            _ = try await next(.offered, view, at: visitor)
            let dialog = try await perform(server, "confirm", view.callback.id, by: visitor).decode(CallbackDialog.self)
            guard case .startChat(_, let conversation, let subject) = dialog.content else { throw TestFailure("notify me and chat starts the chat, not \(dialog)") }
            #expect(conversation == view.conversation.id && subject == "Delivery")
            let reply = try await server.http.send("POST", "/v1/conversations/\(conversation)/messages",
                                                   SendMessageRequest(clientMessageID: "a1", text: "Hi, how can I help?"), token: agent.token)
            #expect(reply.status == 201)
            let message = try await visitor.socket.nextEvent(in: conversation) { $0.message != nil }
            #expect(message.message?.text == "Hi, how can I help?")
            // The chat ends the request with it.
            let ended = try await server.http.post("/v1/conversations/\(conversation)/end", [String: String](), token: agent.token, as: Conversation.self)
            #expect(ended.callback?.status == .ended && ended.callback?.endReason == .completed)
            await visitor.socket.close()
            await agentSocket.close()
        }
    }

    // MARK: Snooze, expiry, cancel

    @Test(arguments: TestStore.available)
    func snooze_keepsThePlace_aheadOfLaterRequests(_ store: TestStore) async throws {
        let clock = ManualClock(start: Date())
        try await withServer(on: store, configure: { $0.clock = clock }) { server in
            let first = try await visitor(server, name: "First"), second = try await visitor(server, name: "Second"), third = try await visitor(server, name: "Third")
            let a = try await request(server, first, RequestCallbackRequest(kind: .notifyAndChat))
            clock.advance(by: 1)
            let b = try await request(server, second, RequestCallbackRequest(kind: .notifyAndChat))
            let (agent, agentSocket) = try await onlineAgent(server, capacity: 1)
            _ = try await next(.offered, a, at: first)

            // A snoozes: the agent's slot goes to B, who confirms.
            let snoozed = try await perform(server, "snooze", a.callback.id, by: first)
            guard case .confirmation(let text, _) = try snoozed.decode(CallbackDialog.self).content else { throw TestFailure("a snooze shows a note") }
            #expect(text == "We will ask you again in 5 minutes.")
            let held = try await callback(server, a, by: first)
            #expect(held.callback.status == .scheduled && held.callback.scheduledUntil == Timestamp.date(millis: Timestamp.millis(clock.now().addingTimeInterval(300))))
            _ = try await next(.offered, b, at: second)
            #expect(try await perform(server, "confirm", b.callback.id, by: second).status == 200)
            clock.advance(by: 1)
            let c = try await request(server, third, RequestCallbackRequest(kind: .notifyAndChat))
            #expect(c.conversation.queuePosition == 1, "a snoozed request does not wait in line")

            // Five minutes later A is back ahead of C, which came after it.
            clock.advance(by: 300)
            _ = try await next(.due, a, at: first)
            let positions = try await third.socket.next { if case .queuePosition(let p) = $0 { p.position == 2 } else { false } }
            #expect(positions == .queuePosition(.init(conversationID: c.conversation.id, position: 2)))
            #expect(try await callback(server, a, by: first).conversation.queuePosition == 1)
            // B's chat ends: the slot goes to A, not C.
            _ = try await server.http.post("/v1/conversations/\(b.conversation.id)/end", [String: String](), token: agent.token, as: Conversation.self)
            let offeredAgain = try await next(.offered, a, at: first)
            #expect(offeredAgain.agentID == agent.agent.id)
            #expect(try await callback(server, c, by: third).callback.status == .waiting)
            for socket in [first.socket, second.socket, third.socket, agentSocket] { await socket.close() }
        }
    }

    @Test(arguments: TestStore.available)
    func anUnconfirmedOffer_goesBackToTheQueue_orEnds_perTheQueue(_ store: TestStore) async throws {
        let clock = ManualClock(start: Date())
        try await withServer(on: store, configure: { $0.clock = clock }) { server in
            let visitor = try await visitor(server)
            let view = try await request(server, visitor, RequestCallbackRequest(kind: .callMe, phone: "+4930901820"))
            let (agent, agentSocket) = try await onlineAgent(server)
            _ = try await next(.offered, view, at: visitor)
            // The agent steps away, so the requeued request is not offered again at once.
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .away), token: agent.token)
            clock.advance(by: 61)
            let requeued = try await next(.requeued, view, at: visitor)
            #expect(requeued.status == .waiting)
            let waiting = try await callback(server, view, by: visitor)
            #expect(waiting.conversation.state == .queued && waiting.conversation.queuePosition == 1)
            // Confirming too late is refused and changes nothing.
            let late = try await perform(server, "confirm", view.callback.id, by: visitor)
            #expect(late.status == 409)

            // A queue that ends unconfirmed requests.
            var settings = CallbackSettings.standard
            settings.onExpiry = .end
            settings.offerSeconds = 30
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/queues/\(server.demo.queue.id)/callbacks", settings, token: server.adminToken)
            let other = try await self.visitor(server, name: "Other")
            let second = try await request(server, other, RequestCallbackRequest(kind: .callMe, phone: "+4930901821"))
            #expect(second.callback.onExpiry == .end && second.callback.offerSeconds == 30)
            _ = try await perform(server, "cancel", view.callback.id, by: visitor)
            _ = try await server.http.send("PUT", "/v1/agent/availability", AvailabilityRequest(availability: .online), token: agent.token)
            _ = try await next(.offered, second, at: other)
            clock.advance(by: 31)
            let expired = try await next(.expired, second, at: other)
            #expect(expired.status == .ended && expired.endReason == .expired)
            let gone = try await callback(server, second, by: other)
            #expect(gone.conversation.state == .ended)
            for socket in [visitor.socket, other.socket, agentSocket] { await socket.close() }
        }
    }

    @Test(arguments: TestStore.available)
    func cancel_endsAWaitingRequest_andIsFinal(_ store: TestStore) async throws {
        try await withServer(on: store, configure: { _ in }) { server in
            let visitor = try await visitor(server)
            let view = try await request(server, visitor, RequestCallbackRequest(kind: .callMe, phone: "+4930901820"))
            let cancelled = try await perform(server, "cancel", view.callback.id, by: visitor)
            #expect(cancelled.status == 200)
            let state = try await callback(server, view, by: visitor)
            #expect(state.callback.status == .ended && state.callback.endReason == .cancelled && state.conversation.state == .ended)
            let again = try await perform(server, "confirm", view.callback.id, by: visitor)
            #expect(again.status == 409 && again.error?.error.code == "invalid_state")
            let unknown = try await perform(server, "hurry", view.callback.id, by: visitor)
            #expect(unknown.status == 404)
            await visitor.socket.close()
        }
    }

    // MARK: Hours and windows

    @Test(arguments: TestStore.available)
    func aClosedQueue_schedulesIntoItsNextOpening_andWindowsMustFallInItsHours(_ store: TestStore) async throws {
        // Tuesday 2026-11-24 20:00 UTC; the queue opens 09–17 UTC on weekdays.
        let clock = ManualClock(start: Date(timeIntervalSince1970: 1_795_550_400))
        try await withServer(on: store, configure: { $0.clock = clock }) { server in
            let weekdays: [Weekday] = [.monday, .tuesday, .wednesday, .thursday, .friday]
            let hours = BusinessHours(timeZone: "UTC", weekly: Dictionary(uniqueKeysWithValues: weekdays.map { ($0, [BusinessHours.Interval.hours(9, 17)]) }))
            let set = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/queues/\(server.demo.queue.id)/hours", hours, token: server.adminToken)
            #expect(set.status == 200)
            let visitor = try await visitor(server)
            let (_, agentSocket) = try await onlineAgent(server)

            let nextMorning = Date(timeIntervalSince1970: 1_795_597_200)  // Wednesday 09:00 UTC
            let view = try await request(server, visitor, RequestCallbackRequest(kind: .callMe, phone: "+4930901820"))
            #expect(view.callback.status == .scheduled && view.callback.scheduledUntil == nextMorning)
            #expect(view.conversation.queuePosition == nil, "not in line before the queue opens")

            let evening = Date(timeIntervalSince1970: 1_795_633_200)  // Wednesday 19:00 UTC
            let outside = try await server.http.send("POST", "/v1/callbacks",
                                                     RequestCallbackRequest(kind: .callMe, phone: "+4930901820", windowStart: evening), token: visitor.token)
            #expect(outside.status == 400 && outside.error?.error.code == "outside_hours")
            let backwards = try await server.http.send("POST", "/v1/callbacks", RequestCallbackRequest(
                kind: .callMe, phone: "+4930901820", windowStart: nextMorning.addingTimeInterval(3_600), windowEnd: nextMorning), token: visitor.token)
            #expect(backwards.status == 400)
            let list = try await server.http.get("/v1/conversations", token: visitor.token, as: ConversationList.self)
            #expect(list.conversations.count == 1, "refused requests store nothing")

            // The queue opens: the request waits and the online agent gets it offered.
            clock.advance(by: nextMorning.timeIntervalSince(clock.now()) + 1)
            _ = try await next(.due, view, at: visitor)
            _ = try await next(.offered, view, at: visitor)
            await visitor.socket.close()
            await agentSocket.close()
        }
    }

    // MARK: Isolation and the compatibility route

    @Test(arguments: TestStore.available)
    func anotherVisitorsOrAppsRequest_isNotFound(_ store: TestStore) async throws {
        try await withServer(on: store, configure: { _ in }) { server in
            let owner = try await visitor(server)
            let view = try await request(server, owner, RequestCallbackRequest(kind: .callMe, phone: "+4930901820"))
            let stranger = try await server.visitor(name: "Stranger")
            let (otherApp, _) = try await server.otherApp()
            let foreign = try await server.visitor(name: "Foreign", app: otherApp.app.id)
            let foreignAgent = try await server.agent(name: "Foreign agent", app: otherApp.app.id)
            for token in [stranger.token, foreign.token] {
                for (method, path) in [("GET", "/v1/callbacks/\(view.callback.id)"), ("GET", "/v1/callbacks/\(view.callback.id)/dialog"),
                                       ("POST", "/v1/callbacks/\(view.callback.id)/actions/cancel"),
                                       ("POST", "/genesys/1/service/\(view.callback.id)/cancel")] {
                    let reply = try await server.http.request(method, path, token: token)
                    #expect(reply.status == 404, "\(method) \(path)")
                }
            }
            let outcome = try await server.http.send("POST", "/v1/conversations/\(view.conversation.id)/callback/outcome",
                                                     CallbackOutcomeRequest(outcome: .done), token: foreignAgent.token)
            #expect(outcome.status == 404)
            // Agents do not make requests; a chat's id is no request.
            let agent = try await server.agent()
            #expect(try await server.http.send("POST", "/v1/callbacks", RequestCallbackRequest(kind: .notifyAndChat), token: agent.token).status == 403)
            let chat = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: stranger.token, as: Conversation.self)
            #expect(try await server.http.request("GET", "/v1/callbacks/\(CallbackID(conversation: chat.id))", token: stranger.token).status == 404)
            #expect(try await callback(server, view, by: owner).callback.status == .waiting, "nothing changed")
            await owner.socket.close()
        }
    }

    @Test(arguments: TestStore.available)
    func genesysRoute_answersInGMSForm_andItsConnectConfirms(_ store: TestStore) async throws {
        try await withServer(on: store, configure: { _ in }) { server in
            let visitor = try await visitor(server)
            let view = try await request(server, visitor, RequestCallbackRequest(kind: .callMe, phone: "+4930901820"))
            let (_, agentSocket) = try await onlineAgent(server)
            _ = try await next(.offered, view, at: visitor)
            let service = "/genesys/1/service/\(view.callback.id)"
            let menu = try await server.http.request("POST", "\(service)/get-dialog-user-confirmation-provide_code-false", token: visitor.token)
            #expect(menu.status == 200)
            let json = try #require(try JSONSerialization.jsonObject(with: menu.body) as? [String: Any])
            #expect(json["_action"] as? String == "DisplayMenu")
            let items = (json["_content"] as? [[String: Any]])?.first?["_group_content"] as? [[String: Any]] ?? []
            let urls = items.compactMap { $0["_user_action_url"] as? String }
            #expect(urls == ["connect", "snooze", "cancel"].map { "\(server.baseURL.absoluteString.trimmingCharacters(in: ["/"]))\(service)/\($0)" })
            let connect = try await server.http.request("POST", "\(service)/connect", token: visitor.token)
            let answer = try #require(try JSONSerialization.jsonObject(with: connect.body) as? [String: Any])
            #expect(answer["_action"] as? String == "ConfirmationDialog" && answer["_id"] as? String == view.callback.id.rawValue)
            #expect(try await callback(server, view, by: visitor).callback.status == .connecting)
            #expect(try await server.http.request("POST", "\(service)/dance", token: visitor.token).status == 404)
            await visitor.socket.close()
            await agentSocket.close()
        }
    }

    /// Each GMS action, asked of the route where the GMS sample app asks it, answers JSON with the
    /// keys of GMS' own example for it.
    @Test(arguments: TestStore.available)
    func genesysRoute_everyActionAnswersInTheShapeOfGMSExample(_ store: TestStore) async throws {
        try await withServer(on: store, configure: { _ in }) { server in
            var settings = CallbackSettings.standard
            settings.dialNumber = "+4930901820"
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/queues/\(server.demo.queue.id)/callbacks", settings, token: server.adminToken)
            let agent = try await server.agent(name: "Ada", capacity: 10)
            let cases: [(action: String, kind: CallbackKind, confirm: Bool, take: Bool)] = [
                ("get-dialog-user-confirmation-provide_code-true", .iWillCall, false, true),
                ("get-dialog-start-chat", .notifyAndChat, true, true),
                ("connect-inbound", .iWillCall, true, true),
                ("connect-outbound", .callMe, true, true),
                ("wait-for-agent", .callMe, false, false),
            ]
            for item in cases {
                let visitor = try await visitor(server)
                let view = try await request(server, visitor, RequestCallbackRequest(kind: item.kind, phone: item.kind == .callMe ? "+4930901820" : nil))
                if item.take {
                    #expect(try await server.http.request("POST", "/v1/conversations/\(view.conversation.id)/accept", body: Data("{}".utf8), token: agent.token).status == 200)
                }
                if item.confirm { #expect(try await perform(server, "confirm", view.callback.id, by: visitor).status == 200) }
                let reply = try await server.http.request("POST", "/genesys/1/service/\(view.callback.id)/\(item.action)", token: visitor.token)
                #expect(reply.status == 200, "\(item.action)")
                let ours = try #require(try JSONSerialization.jsonObject(with: reply.body) as? [String: Any])
                let theirs = try GenesysFixtures.example(item.action)
                #expect(GenesysFixtures.shape(ours) == GenesysFixtures.shape(theirs),
                        "\(item.action): keys differ \(GenesysFixtures.shape(ours).symmetricDifference(GenesysFixtures.shape(theirs)))")
                #expect(ours["_action"] as? String == theirs["_action"] as? String, "\(item.action)")
                await visitor.socket.close()
            }
        }
    }

    @Test(arguments: TestStore.available)
    func theAppsWords_replaceTheBuiltInOnes_perLanguage(_ store: TestStore) async throws {
        try await withServer(on: store, configure: { _ in }) { server in
            let path = "/v1/admin/apps/\(server.appID)/callback-texts"
            let bad = try await server.http.send("PUT", path, CallbackTextOverrides(languages: ["en": ["greeting": "Hi"]]), token: server.adminToken)
            #expect(bad.status == 400)
            let saved = try await server.http.send("PUT", path, CallbackTextOverrides(languages: ["en": ["waiting": "Hang tight, we'll ping you."]]), token: server.adminToken)
            #expect(saved.status == 200)
            let visitor = try await visitor(server)
            let english = try await request(server, visitor, RequestCallbackRequest(kind: .notifyAndChat, language: "en-GB"))
            #expect(english.dialog.content == .confirmation(text: "Hang tight, we'll ping you.", okTitle: "OK"))
            let german = try await request(server, visitor, RequestCallbackRequest(kind: .notifyAndChat, language: "de"))
            #expect(german.dialog.content == .confirmation(text: CallbackDialogTexts.standard(for: "de").waiting, okTitle: "OK"))
            await visitor.socket.close()
        }
    }
}
