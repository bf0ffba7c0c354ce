import Foundation
import ParleyCore
import ParleyStore

extension ConversationService {
    /// The transcript of a conversation the caller may see: every event, read a page at a time,
    /// rendered by ParleyCore's ``Transcript`` (internal notes are not events, so never in it).
    /// - Throws: 413 when the conversation has more than ``Limits/maxTranscriptEvents`` events.
    func transcript(_ id: ConversationID, caller: Caller) async throws -> Transcript {
        let conversation = try await visible(id, to: caller)
        guard conversation.lastSeq <= Limits.maxTranscriptEvents else {
            throw APIError.tooLarge("a transcript covers at most \(Limits.maxTranscriptEvents) events; read the history page by page")
        }
        var events: [ConversationEvent] = []
        while true {
            let page = try await store.events(id, app: conversation.appID, afterSeq: events.last?.seq ?? 0, limit: Limits.maxEventPage)
            events += page
            if page.count < Limits.maxEventPage || events.count >= Limits.maxTranscriptEvents { break }
        }
        return Transcript(conversation: conversation, events: events)
    }
}
