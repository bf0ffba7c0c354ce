import Foundation
import ParleyCore

/// The stored history without its events: what ``ParleyClient/start()`` needs to show the
/// conversation list and to resume every conversation after its last stored seq.
public struct StoredHistoryIndex: Sendable, Hashable {
    /// The store epoch the seqs belong to.
    public var epoch: String?
    /// Each conversation that has a stored summary or stored events.
    public var conversations: [ConversationID: StoredConversationEntry]
    /// Events the storage read anyway to make the index (the default ``ParleyStorage/loadHistoryIndex()``
    /// reads them all): the client adopts them instead of asking ``ParleyStorage/loadEvents(of:)``.
    /// Empty for a storage that reads events only on demand.
    public var events: [ConversationID: [ConversationEvent]]

    /// An index value.
    public init(epoch: String? = nil, conversations: [ConversationID: StoredConversationEntry] = [:],
                events: [ConversationID: [ConversationEvent]] = [:]) {
        self.epoch = epoch
        self.conversations = conversations
        self.events = events
    }
}

/// One conversation of a ``StoredHistoryIndex``: its summary and what its stored events add up to.
public struct StoredConversationEntry: Sendable, Hashable {
    /// The last stored summary, if any.
    public var summary: Conversation?
    /// The seq of the newest stored event (0 when none is stored).
    public var lastSeq: Int64
    /// How many events are stored. Equal to ``lastSeq`` when they run from seq 1 without a gap.
    public var eventCount: Int
    /// The highest seq the visitor marked read in the stored events (0 when none).
    public var visitorReadSeq: Int64
    /// Stored messages by others than the visitor with a seq above ``visitorReadSeq``.
    public var unreadCount: Int

    /// An entry. Defaults: nothing stored.
    public init(summary: Conversation? = nil, lastSeq: Int64 = 0, eventCount: Int = 0, visitorReadSeq: Int64 = 0, unreadCount: Int = 0) {
        self.summary = summary
        self.lastSeq = lastSeq
        self.eventCount = eventCount
        self.visitorReadSeq = visitorReadSeq
        self.unreadCount = unreadCount
    }

    /// True when the stored events run from seq 1 to ``lastSeq`` without a gap: resuming after
    /// ``lastSeq`` then misses nothing.
    public var isGapFree: Bool { Int64(eventCount) == lastSeq }
}

extension ParleyStorage {
    /// The index made from ``loadHistory()``, handing over every event it read.
    /// - Throws: what ``loadHistory()`` throws.
    public func loadHistoryIndex() throws -> StoredHistoryIndex {
        let history = try loadHistory()
        return StoredHistoryIndex(history: history, handingOverEvents: true)
    }

    /// `loadHistory().events[conversation]`: every event read, one conversation's kept.
    /// - Throws: what ``loadHistory()`` throws.
    public func loadEvents(of conversation: ConversationID) throws -> [ConversationEvent] {
        try loadHistory().events[conversation] ?? []
    }
}

extension StoredHistoryIndex {
    /// The index of a history held in memory.
    init(history: StoredHistory, handingOverEvents: Bool) {
        var conversations: [ConversationID: StoredConversationEntry] = [:]
        for id in Set(history.conversations.keys).union(history.events.keys) {
            var digest = ConversationDigest()
            for event in history.events[id] ?? [] { digest.add(event) }
            conversations[id] = digest.entry(summary: history.conversations[id])
        }
        self.init(epoch: history.epoch, conversations: conversations, events: handingOverEvents ? history.events : [:])
    }
}
