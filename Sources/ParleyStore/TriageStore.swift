import Foundation
import ParleyCore

/// Agents' triage of conversations (tags, priority, snooze) and the facts the inbox's views are
/// computed from. Triage lives beside the conversation, never in it, so no path that serves a
/// visitor a ``Conversation`` can carry it.
public protocol TriageStore: Sendable {
    /// The stored triage of these conversations of the app (those never triaged are absent).
    func triage(_ ids: [ConversationID], app: AppID) async throws -> [Triage]
    /// Applies an update and returns the triage as stored.
    /// - Throws: ``StoreError/notFound(_:)`` when the conversation is not the app's.
    func updateTriage(_ id: ConversationID, app: AppID, _ update: TriageUpdate, by: Participant, at: Date) async throws -> Triage
    /// Every queued or assigned conversation of the app, with its triage and what the views need,
    /// read markers as `reader` left them.
    func openConversations(app: AppID, reader: AgentID) async throws -> [OpenConversation]
}

/// A queued or assigned conversation as the inbox's views see it.
public struct OpenConversation: Sendable, Hashable {
    public var conversation: Conversation
    public var queueRank: Int64?
    /// Its triage (the defaults when never triaged).
    public var triage: Triage
    /// The seq of the visitor's newest message; 0 when they wrote none.
    public var lastVisitorMessageSeq: Int64
    /// When the visitor's newest message was written; nil when they wrote none.
    public var lastVisitorMessageAt: Date?
    /// The reader's read marker; 0 when none.
    public var readerReadSeq: Int64
    /// The time of the first visitor message after the last agent message: how long the visitor
    /// has waited for an answer. Nil when an agent answered last, or nobody wrote.
    public var waitingSince: Date?

    public init(conversation: Conversation, queueRank: Int64?, triage: Triage, lastVisitorMessageSeq: Int64, lastVisitorMessageAt: Date? = nil,
                readerReadSeq: Int64, waitingSince: Date?) {
        self.lastVisitorMessageAt = lastVisitorMessageAt
        self.conversation = conversation
        self.queueRank = queueRank
        self.triage = triage
        self.lastVisitorMessageSeq = lastVisitorMessageSeq
        self.readerReadSeq = readerReadSeq
        self.waitingSince = waitingSince
    }
}

/// How every store applies a triage update, and what it refuses.
public enum TriageRules {
    /// The most tags on one conversation.
    public static let maxTags = 10

    /// The update applied to `current` (the defaults when nil), tags sorted without repeats.
    /// - Throws: ``StoreError/invalidInput(_:)`` past ``maxTags``.
    public static func apply(_ update: TriageUpdate, to current: Triage?, id: ConversationID, by: Participant, at: Date) throws(StoreError) -> Triage {
        var triage = current ?? Triage(conversationID: id)
        if let tags = update.tags {
            let unique = Array(Set(tags)).sorted()
            guard unique.count <= maxTags else { throw .invalidInput("tags: at most \(maxTags) on a conversation") }
            triage.tags = unique
        }
        if let priority = update.priority { triage.priority = priority }
        if let snooze = update.snoozedUntil { triage.snoozedUntil = snooze.map { Timestamp.date(millis: Timestamp.millis($0)) } }
        triage.updatedBy = by
        triage.updatedAt = Timestamp.date(millis: Timestamp.millis(at))
        return triage
    }

    /// Tags as stored: a JSON array of strings.
    public static func encodeTags(_ tags: [String]) -> String {
        String(decoding: (try? JSONEncoder().encode(tags)) ?? Data("[]".utf8), as: UTF8.self)
    }

    public static func decodeTags(_ text: String?) -> [String] {
        guard let text, let tags = try? JSONDecoder().decode([String].self, from: Data(text.utf8)) else { return [] }
        return tags
    }

    /// The author as stored: a participant's JSON.
    public static func encodeParticipant(_ participant: Participant?) -> String? {
        participant.flatMap { try? ParleyJSON.encode($0) }.map { String(decoding: $0, as: UTF8.self) }
    }

    public static func decodeParticipant(_ text: String?) -> Participant? {
        text.flatMap { try? ParleyJSON.decode(Participant.self, from: Data($0.utf8)) }
    }
}
