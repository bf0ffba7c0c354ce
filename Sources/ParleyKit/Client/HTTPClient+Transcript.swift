import Foundation
import ParleyCore

extension HTTPClient {
    /// Reads a conversation and its whole history, a page at a time, into a transcript that
    /// ParleyCore renders as plain text or a standalone HTML document.
    func transcript(of id: ConversationID, token: String) async throws -> Transcript {
        let conversation = try await request("GET", "/v1/conversations/\(id)", token: token, as: Conversation.self)
        var events: [ConversationEvent] = []
        while true {
            let page = try await request(
                "GET", "/v1/conversations/\(id)/events?after=\(events.last?.seq ?? 0)&limit=\(Limits.maxEventPage)", token: token, as: EventPage.self)
            events += page.events
            if !page.hasMore || page.events.isEmpty { break }
        }
        return Transcript(conversation: conversation, events: events)
    }
}
