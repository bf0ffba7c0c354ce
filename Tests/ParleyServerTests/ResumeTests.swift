import Foundation
import ParleyCore
import ParleyStore
import ParleyTestSupport
import ParleyStoreSQLite
import Testing

@Suite(.timeLimit(.minutes(2)))
struct ResumeTests {
    @Test func resumeAfterDroppedConnection_deliversExactlyTheMissedEvents() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            let first = try await server.socket(session.token)
            try await first.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            for index in 1...3 {
                try await first.send(.send(.init(ref: "\(index)", conversationID: conversation.id, clientMessageID: "before-\(index)", text: "before \(index)")))
            }
            let seen = try await first.nextEvent(in: conversation.id) { $0.seq == 4 }
            #expect(seen.message?.text == "before 3")
            await first.close()

            // While the visitor is away, five more events are stored.
            for index in 1...5 {
                _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                               SendMessageRequest(clientMessageID: "missed-\(index)", text: "missed \(index)"),
                                               token: session.token, as: SendMessageResponse.self)
            }
            let epoch = try await server.store.epoch()
            let second = try await server.socket(session.token)
            try await second.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 4, epoch: epoch)))
            let subscribed = try await second.next { if case .subscribed = $0 { true } else { false } }
            #expect(subscribed == .subscribed(.init(conversationID: conversation.id, lastSeq: 9, epoch: epoch)))
            // Live events continue after the replay with no gap and no duplicate.
            try await second.send(.send(.init(ref: "live", conversationID: conversation.id, clientMessageID: "after-1", text: "after")))
            _ = try await second.next { if case .ack = $0 { true } else { false } }
            let events = try await second.takeEvents(in: conversation.id)
            #expect(events.map(\.seq) == [5, 6, 7, 8, 9, 10])
            #expect(events.compactMap(\.message?.text) == ["missed 1", "missed 2", "missed 3", "missed 4", "missed 5", "after"])
            await second.close()
        }
    }

    @Test func resumeWithAnotherEpoch_saysResetAndReplaysEverything() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages",
                                           SendMessageRequest(clientMessageID: "one", text: "one"), token: session.token, as: SendMessageResponse.self)
            let socket = try await server.socket(session.token)
            try await socket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 2, epoch: "some-other-database")))
            let reset = try await socket.next()
            #expect(reset == .reset(.init(conversationID: conversation.id, epoch: try await server.store.epoch())))
            // The replay comes before `subscribed`; waiting for it makes the check independent of timing.
            _ = try await socket.next { if case .subscribed = $0 { true } else { false } }
            let events = try await socket.takeEvents(in: conversation.id)
            #expect(events.map(\.seq) == [1, 2])
            await socket.close()
        }
    }

    @Test func resumeBeyondTheLastSeq_saysReset() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            let socket = try await server.socket(session.token)
            try await socket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 99, epoch: try await server.store.epoch())))
            let reset = try await socket.next()
            guard case .reset = reset else { throw TestFailure("expected reset, got \(reset)") }
            #expect(try await socket.nextEvent(in: conversation.id).seq == 1)
            await socket.close()
        }
    }

    @Test func idempotentResend_returnsTheStoredMessage_andAChangedResendIsRefused() async throws {
        try await withServer { server in
            let session = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: session.token, as: Conversation.self)
            let socket = try await server.socket(session.token)
            let send = ClientFrame.send(.init(ref: "a", conversationID: conversation.id, clientMessageID: "9b2f6c1e-0000-4000-8000-000000000001", text: "Hello"))
            try await socket.send(send)
            guard case .ack(let first) = try await socket.next(where: { if case .ack = $0 { true } else { false } }) else { throw TestFailure("no ack") }
            try await socket.send(send)
            guard case .ack(let again) = try await socket.next(where: { if case .ack = $0 { true } else { false } }) else { throw TestFailure("no ack") }
            #expect(first.duplicate == false)
            #expect(again.duplicate == true)
            #expect(again.event == first.event)

            try await socket.send(.send(.init(ref: "b", conversationID: conversation.id, clientMessageID: "9b2f6c1e-0000-4000-8000-000000000001", text: "Changed")))
            let refused = try await socket.next { if case .error = $0 { true } else { false } }
            #expect(refused == .error(.init(ref: "b", conversationID: conversation.id, code: "idempotency_conflict", message: "client_message_id 9b2f6c1e-0000-4000-8000-000000000001 was used for another message")))

            // Over HTTP too: 200 for the resend, 409 for a changed one.
            let resent = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages",
                                                    SendMessageRequest(clientMessageID: "9b2f6c1e-0000-4000-8000-000000000001", text: "Hello"), token: session.token)
            #expect(resent.status == 200)
            #expect(try resent.decode(SendMessageResponse.self) == SendMessageResponse(duplicate: true, event: first.event))
            let changed = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/messages",
                                                     SendMessageRequest(clientMessageID: "9b2f6c1e-0000-4000-8000-000000000001", text: "Other"), token: session.token)
            #expect(changed.status == 409)
            #expect(changed.error?.error.code == "idempotency_conflict")
            let page = try await server.http.get("/v1/conversations/\(conversation.id)/events", token: session.token, as: EventPage.self)
            #expect(page.events.compactMap(\.message?.text) == ["Hello"])
            await socket.close()
        }
    }
}
