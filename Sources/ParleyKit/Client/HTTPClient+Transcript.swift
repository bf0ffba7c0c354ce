import Foundation
import ParleyCore

extension HTTPClient {
    /// Reads a conversation and its whole history, a page at a time, into a transcript that
    /// ParleyCore renders as plain text or a standalone HTML document.
    func transcript(of id: ConversationID, token: String) async throws -> Transcript {
        let conversation = try await call(.conversations.get(id), token: token)
        var events: [ConversationEvent] = []
        while true {
            let page = try await call(
                .conversations.events(id).query("after", events.last?.seq ?? 0).query("limit", Limits.maxEventPage), token: token)
            events += page.events
            if !page.hasMore || page.events.isEmpty { break }
        }
        return Transcript(conversation: conversation, events: events)
    }
}
