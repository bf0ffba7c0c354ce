import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// What a node does when its notice feed was interrupted (decision 0006): events stored behind the
/// hub's back (as another node's are) reach a subscriber only through the catch-up, exactly once.
@Suite(.timeLimit(.minutes(1)))
struct NodeCatchUpTests {
    @Test func resynchronize_deliversEventsTheHubNeverHeardOf_onceEach() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let socket = try await server.socket(visitor.token)
            try await socket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
            _ = try await socket.next { if case .subscribed = $0 { true } else { false } }
            _ = try await socket.takeEvents(in: conversation.id)

            // Stored straight into the store, as another node would: no hub, no frame.
            let author = Participant.visitor(visitor.visitor.id, name: "Visitor")
            for index in 1...3 {
                _ = try await server.store.commit(.postMessage(.init(
                    conversationID: conversation.id, appID: server.appID, author: author, clientMessageID: "elsewhere-\(index)",
                    text: "stored elsewhere \(index)", reopenRank: 0, at: Date())))
            }
            #expect(try await socket.takeEvents(in: conversation.id).isEmpty, "nothing arrives without a notice")

            server.parley.hub.resynchronize()
            server.parley.hub.resynchronize()  // twice: the cursor keeps it exactly once
            var texts: [String] = []
            while texts.count < 3 {
                texts.append(try await socket.nextEvent(in: conversation.id) { $0.message != nil }.message?.text ?? "")
            }
            #expect(texts == ["stored elsewhere 1", "stored elsewhere 2", "stored elsewhere 3"])
            #expect(try await socket.takeEvents(in: conversation.id).isEmpty, "no event twice")
            await socket.close()
        }
    }
}
