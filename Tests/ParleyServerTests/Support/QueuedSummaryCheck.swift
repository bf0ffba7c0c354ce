import Foundation
import ParleyCore
import ParleyTestSupport
import Testing

/// A visitor on `writer` opens a conversation and writes into it while it waits in its queue; an
/// agent's desk on `desk` follows nothing, yet must hear that the queued conversation moved on (its
/// wait, the inbox counts): a summary with the new last seq, still queued. One node, or two.
func expectQueuedWritingReachesTheDesk(writer: TestServer, desk: TestServer) async throws {
    let agent = try await desk.demoAgent()
    let socket = try await desk.socket(agent.token)
    let visitor = try await writer.visitor()
    let opened = try await writer.http.post("/v1/conversations", OpenConversationRequest(), token: visitor.token, as: Conversation.self)
    _ = try await socket.next { if case .conversation(let c) = $0 { c.id == opened.id } else { false } }
    let sent = try await writer.http.send("POST", "/v1/conversations/\(opened.id)/messages",
                                          SendMessageRequest(clientMessageID: "still-there", text: "Anyone?"), token: visitor.token)
    #expect(sent.status == 201)
    let summary = try await socket.next { if case .conversation(let c) = $0 { c.id == opened.id && c.lastSeq > opened.lastSeq } else { false } }
    guard case .conversation(let conversation) = summary else { Issue.record("no summary"); return }
    #expect(conversation.state == .queued)
    await socket.close()
}
