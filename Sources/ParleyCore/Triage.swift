import Foundation

/// How urgent a conversation is, as agents set it.
public enum ConversationPriority: String, Hashable, Sendable, Codable, CaseIterable {
    case low, normal, high, urgent
}

/// What agents note about a conversation to sort their work: tags, priority and a snooze. Never
/// shown to the visitor: it travels only in agents' lists, `…/triage` and `triage` frames.
public struct Triage: Hashable, Sendable, Codable {
    public var conversationID: ConversationID
    /// Names from the app's tag list, sorted, without repeats.
    public var tags: [String]
    public var priority: ConversationPriority
    /// The conversation stays out of the inbox's views until then; nil when not snoozed.
    public var snoozedUntil: Date?
    /// Who changed it last, and when; nil before anyone did.
    public var updatedBy: Participant?
    public var updatedAt: Date?

    public init(conversationID: ConversationID, tags: [String] = [], priority: ConversationPriority = .normal, snoozedUntil: Date? = nil,
                updatedBy: Participant? = nil, updatedAt: Date? = nil) {
        self.conversationID = conversationID
        self.tags = tags
        self.priority = priority
        self.snoozedUntil = snoozedUntil
        self.updatedBy = updatedBy
        self.updatedAt = updatedAt
    }

    /// Whether the snooze still holds at `now`.
    public func isSnoozed(at now: Date) -> Bool { snoozedUntil.map { $0 > now } ?? false }

    enum CodingKeys: String, CodingKey {
        case conversationID = "conversation_id", tags, priority, snoozedUntil = "snoozed_until", updatedBy = "updated_by", updatedAt = "updated_at"
    }
}

/// `PUT /v1/conversations/{id}/triage`: the fields given change, the others stay.
/// `"snoozed_until": null` ends a snooze; leaving it out keeps it.
public struct TriageUpdate: Hashable, Sendable, Codable {
    public var tags: [String]?
    public var priority: ConversationPriority?
    /// nil: unchanged; `.some(nil)`: not snoozed; `.some(date)`: snoozed until then.
    public var snoozedUntil: Date??

    public init(tags: [String]? = nil, priority: ConversationPriority? = nil, snoozedUntil: Date?? = nil) {
        self.tags = tags
        self.priority = priority
        self.snoozedUntil = snoozedUntil
    }

    enum CodingKeys: String, CodingKey { case tags, priority, snoozedUntil = "snoozed_until" }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        tags = try container.decodeIfPresent([String].self, forKey: .tags)
        priority = try container.decodeIfPresent(ConversationPriority.self, forKey: .priority)
        snoozedUntil = container.contains(.snoozedUntil) ? .some(try container.decodeIfPresent(Date.self, forKey: .snoozedUntil)) : nil
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(tags, forKey: .tags)
        try container.encodeIfPresent(priority, forKey: .priority)
        if let snoozedUntil {
            if let date = snoozedUntil { try container.encode(date, forKey: .snoozedUntil) } else { try container.encodeNil(forKey: .snoozedUntil) }
        }
    }
}

/// A tag an admin offers agents (`GET /v1/tags`, `PUT /v1/admin/apps/{app}/tags`).
public struct TagDefinition: Hashable, Sendable, Codable {
    /// 1 to 40 characters: letters, digits, spaces, `-` and `_`; unique in the app without regard to case.
    public var name: String
    /// `#rrggbb`, shown beside the name.
    public var color: String

    public init(name: String, color: String) {
        self.name = name
        self.color = color
    }
}

/// The app's tags, in the order the admin put them.
public struct TagList: Hashable, Sendable, Codable {
    public var tags: [TagDefinition]
    public init(tags: [TagDefinition]) { self.tags = tags }
}

/// `GET /v1/desk/counts`: how many conversations each inbox view holds now.
public struct InboxCounts: Hashable, Sendable, Codable {
    /// Unassigned, waiting in a queue.
    public var queued: Int
    /// Assigned to the caller.
    public var mine: Int
    /// The caller's with visitor messages after their read marker.
    public var unread: Int
    /// Open ones whose visitor wrote last.
    public var waiting: Int
    /// The caller's or unassigned ones snoozed now.
    public var snoozed: Int
    /// Open, not snoozed, per queue id.
    public var byQueue: [String: Int]
    /// Assigned, not snoozed, per agent id.
    public var byAgent: [String: Int]
    /// When the next snooze of the app ends (the views change then); nil when none is pending.
    public var nextWake: Date?

    public init(queued: Int, mine: Int, unread: Int, waiting: Int, snoozed: Int, byQueue: [String: Int], byAgent: [String: Int], nextWake: Date?) {
        self.queued = queued
        self.mine = mine
        self.unread = unread
        self.waiting = waiting
        self.snoozed = snoozed
        self.byQueue = byQueue
        self.byAgent = byAgent
        self.nextWake = nextWake
    }

    enum CodingKeys: String, CodingKey {
        case queued, mine, unread, waiting, snoozed, byQueue = "by_queue", byAgent = "by_agent", nextWake = "next_wake"
    }
}
