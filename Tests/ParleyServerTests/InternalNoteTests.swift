import Foundation
import ParleyCore
import ParleyServer
import ParleyTestSupport
import Testing

/// Internal notes reach the app's agents and never a visitor: not live, not in history, not by id.
@Suite(.timeLimit(.minutes(2)))
struct InternalNoteTests {
    @Test func aNote_reachesSubscribedAgents_andNeverTheVisitor() async throws {
        try await withServer { server in
            let agent = try await server.demoAgent()
            let colleague = try await server.agent(name: "Colleague")
            let visitor = try await server.visitor(name: "Ada")
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let visitorSocket = try await server.socket(visitor.token)
            let colleagueSocket = try await server.socket(colleague.token)
            let bystanderSocket = try await server.socket(agent.token)  // an agent socket not subscribed
            for socket in [visitorSocket, colleagueSocket] {
                try await socket.send(.subscribe(.init(conversationID: conversation.id, afterSeq: 0)))
                _ = try await socket.next { if case .subscribed = $0 { true } else { false } }
            }

            let secret = "Refund approved — do not tell the customer yet"
            let reply = try await server.http.send("POST", "/v1/conversations/\(conversation.id)/notes", AddNoteRequest(clientNoteID: "note-1", text: secret), token: agent.token)
            #expect(reply.status == 201)
            let note = try reply.decode(InternalNote.self)
            #expect(note.seq == 1 && note.author == .agent(server.demo.agent.id, name: server.demo.agent.name) && note.text == secret)

            let live = try await colleagueSocket.next { if case .note = $0 { true } else { false } }
            #expect(live == .note(note))
            // A message after the note: once the visitor has it, anything sent before it has arrived too.
            _ = try await server.http.post("/v1/conversations/\(conversation.id)/messages", SendMessageRequest(clientMessageID: "m-1", text: "Hello"), token: visitor.token, as: SendMessageResponse.self)
            _ = try await visitorSocket.nextEvent(in: conversation.id) { $0.message?.text == "Hello" }
            #expect(!visitorSocket.buffer.pending.contains { if case .note = $0 { true } else { false } })
            #expect(!bystanderSocket.buffer.pending.contains { if case .note = $0 { true } else { false } })

            // Not in the visitor's history, nor the events' numbering; the notes route is "not found" for visitors.
            let history = try await server.http.request("GET", "/v1/conversations/\(conversation.id)/events", token: visitor.token)
            #expect(!String(decoding: history.body, as: UTF8.self).contains("Refund approved"))
            let page = try history.decode(EventPage.self)
            #expect(page.events.map(\.seq) == Array(1...page.lastSeq))
            #expect(try await server.http.request("GET", "/v1/conversations/\(conversation.id)/notes", token: visitor.token).status == 404)
            #expect(try await server.http.send("POST", "/v1/conversations/\(conversation.id)/notes", AddNoteRequest(clientNoteID: "v", text: "hi"), token: visitor.token).status == 404)

            // Agents read them back.
            let notes = try await server.http.get("/v1/conversations/\(conversation.id)/notes", token: colleague.token, as: NoteList.self)
            #expect(notes.notes == [note])
            for socket in [visitorSocket, colleagueSocket, bystanderSocket] { await socket.close() }
        }
    }

    @Test func notes_areIdempotent_validated_andScopedToTheApp() async throws {
        try await withServer { server in
            let agent = try await server.demoAgent()
            let visitor = try await server.visitor()
            let conversation = try await server.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
            let path = "/v1/conversations/\(conversation.id)/notes"
            let first = try await server.http.send("POST", path, AddNoteRequest(clientNoteID: "n-1", text: "Checked the order"), token: agent.token)
            let again = try await server.http.send("POST", path, AddNoteRequest(clientNoteID: "n-1", text: "Checked the order"), token: agent.token)
            #expect(first.status == 201 && again.status == 200)
            #expect(try first.decode(InternalNote.self) == again.decode(InternalNote.self))
            let conflict = try await server.http.send("POST", path, AddNoteRequest(clientNoteID: "n-1", text: "Something else"), token: agent.token)
            #expect(conflict.status == 409 && conflict.error?.error.code == "idempotency_conflict")
            #expect(try await server.http.send("POST", path, AddNoteRequest(clientNoteID: "n-2", text: "   "), token: agent.token).status == 400)
            #expect(try await server.http.send("POST", path, AddNoteRequest(clientNoteID: "n-3", text: String(repeating: "x", count: 10_001)), token: agent.token).status == 413)
            #expect(try await server.http.send("POST", path, AddNoteRequest(clientNoteID: "", text: "x"), token: agent.token).status == 400)

            let (otherApp, _) = try await server.otherApp()
            let stranger = try await server.agent(name: "Stranger", app: otherApp.app.id)
            #expect(try await server.http.request("GET", path, token: stranger.token).status == 404)
            #expect(try await server.http.send("POST", path, AddNoteRequest(clientNoteID: "s", text: "x"), token: stranger.token).status == 404)

            let notes = try await server.http.get(path, token: agent.token, as: NoteList.self).notes
            #expect(notes.map(\.seq) == [1])
            let unchanged = try await server.http.get("/v1/conversations/\(conversation.id)", token: agent.token, as: Conversation.self)
            #expect(unchanged.lastSeq == conversation.lastSeq)
        }
    }
}
