import Foundation
import ParleyCore

/// One conversation as the client knows it, built by applying events in seq order: a pure reducer
/// with no I/O, so what a UI shows is tested without a server.
///
/// A snapshot can start from storage's figures alone (``init(id:stored:)``): the stored events are
/// read only when a screen needs them, and events applied meanwhile follow them
/// (``adoptStoredEvents(_:)`` puts them together).
public struct ConversationSnapshot: Sendable, Hashable {
    /// The conversation's id.
    public let id: ConversationID
    /// The summary from the server (subject, queue, state at fetch time).
    public var summary: Conversation?
    /// Stored events in seq order, without gaps from the first one kept. While ``isLoaded`` is
    /// false, only the events applied after the stored ones.
    public private(set) var events: [ConversationEvent] = []
    /// The live queue position while queued.
    public var queuePosition: Int?
    /// Who is typing now (besides the visitor).
    public var typing: Set<Participant> = []
    /// The authors seen so far: each event's author shares their strings, instead of every event
    /// holding copies of the same ids and names (a few hundred bytes per event over a long history).
    private var authors: [Participant] = []
    /// Storage's figures for the events before `events`, while those are not read.
    private var stored: StoredConversationEntry?

    /// An empty snapshot, optionally with the server's summary.
    public init(id: ConversationID, summary: Conversation? = nil) {
        self.id = id
        self.summary = summary
    }

    /// A snapshot of stored events: the gap-free run from seq 1 is kept (the array itself, not a
    /// copy, when it is all of them), as if each had been applied in turn.
    public init(id: ConversationID, summary: Conversation?, events stored: [ConversationEvent]) {
        self.id = id
        self.summary = summary
        var count = 0
        while count < stored.count, stored[count].seq == Int64(count) + 1, stored[count].conversationID == id { count += 1 }
        events = count == stored.count ? stored : Array(stored.prefix(count))
        for event in events {
            derive(from: event)
            if !authors.contains(event.author) { authors.append(event.author) }
        }
    }

    /// A snapshot of a conversation whose stored events are not read yet, from storage's figures
    /// (``StoredConversationEntry/isGapFree`` should hold: the figures are trusted as a gap-free run).
    public init(id: ConversationID, stored entry: StoredConversationEntry) {
        self.id = id
        self.summary = entry.summary
        if entry.lastSeq > 0 {
            stored = entry
            summary?.lastSeq = entry.lastSeq
        }
    }

    /// False while the stored events are not read (``init(id:stored:)``).
    public var isLoaded: Bool { stored == nil }

    /// True when the unread count cannot be told without the stored events: the visitor marked read
    /// up to a seq among stored messages that were unread.
    public var needsStoredEvents: Bool {
        guard let stored else { return false }
        let read = readSeq(by: .visitor)
        return read > stored.visitorReadSeq && read < stored.lastSeq
    }

    /// Puts the stored events, once read, before the events applied since: the gap-free run from
    /// seq 1 is kept, then each applied event that continues it. Returns false when that run ends
    /// before the newest event applied (storage lost some): ``lastSeq`` is then lower, and what
    /// follows must be fetched again.
    @discardableResult
    public mutating func adoptStoredEvents(_ storedEvents: [ConversationEvent]) -> Bool {
        guard stored != nil else { return true }
        let expected = lastSeq
        var loaded = ConversationSnapshot(id: id, summary: summary, events: storedEvents)
        for event in events where event.seq == loaded.lastSeq + 1 { loaded.apply(event) }
        // Live state, not derived from events: kept as it is now.
        loaded.queuePosition = queuePosition
        loaded.typing = typing
        self = loaded
        return lastSeq == expected
    }

    /// The seq of the newest event applied (0 when none).
    public var lastSeq: Int64 { events.last?.seq ?? stored?.lastSeq ?? 0 }

    /// Applies a stored event. Returns false for one already applied (a replay overlap).
    @discardableResult
    public mutating func apply(_ event: ConversationEvent) -> Bool {
        guard event.conversationID == id, event.seq > lastSeq else { return false }
        var event = event
        event.conversationID = id
        if let known = authors.first(where: { $0 == event.author }) {
            event.author = known
        } else {
            authors.append(event.author)
        }
        events.append(event)
        derive(from: event)
        return true
    }

    /// What an event changes besides the list: the summary's state and last seq, the queue
    /// position, who is typing.
    private mutating func derive(from event: ConversationEvent) {
        switch event.body {
        case .stateChanged(let change):
            if var updated = summary {
                updated.state = change.to
                updated.agentID = change.to == .queued ? nil : (change.agentID ?? updated.agentID)
                summary = updated
            }
            if change.to != .queued { queuePosition = nil }
        case .message, .pagePushed:
            typing.remove(event.author)
        case .participantLeft(let left):
            typing.remove(left.participant)
        case .callback(let change):
            summary?.callback = change.callback
        default:
            break
        }
        summary?.lastSeq = event.seq
    }

    /// Forgets every event (the server said `reset`: another epoch); a full replay follows.
    public mutating func reset() {
        events = []
        typing = []
        stored = nil
    }

    /// The conversation's state: from the newest state change, else the summary, else queued.
    public var state: ConversationState {
        for event in events.reversed() {
            if case .stateChanged(let change) = event.body { return change.to }
        }
        return summary?.state ?? .queued
    }

    /// The agent in the conversation now: joined and not left since.
    public var agent: Participant? {
        var current: Participant?
        for event in events {
            switch event.body {
            case .participantJoined(let joined) where joined.participant.role == .agent: current = joined.participant
            case .participantLeft(let left) where left.participant.id == current?.id: current = nil
            default: break
            }
        }
        return current
    }

    /// The highest seq the given role has marked read (while ``isLoaded`` is false, storage's
    /// figures count for the visitor only).
    public func readSeq(by role: Participant.Role) -> Int64 {
        let initial = role == .visitor ? stored?.visitorReadSeq ?? 0 : 0
        return events.reduce(initial) { seq, event in
            if case .read(let marker) = event.body, event.author.role == role { return max(seq, marker.readSeq) }
            return seq
        }
    }

    /// Messages from the other side that the visitor has not read (read on any device counts).
    public var unreadCount: Int {
        let read = readSeq(by: .visitor)
        let applied = events.filter { $0.seq > read && $0.isContent && $0.author.role != .visitor }.count
        // Storage's count holds until the visitor reads past its read seq (``needsStoredEvents``).
        guard let stored, read < stored.lastSeq else { return applied }
        return applied + stored.unreadCount
    }

    /// The transcript: stored messages, then the visitor's messages still in the outbox.
    public func messages(pending: [OutboxItem], visitor: VisitorID?) -> [ChatMessage] {
        var messages: [ChatMessage] = events.compactMap { event in
            guard let body = event.message else { return nil }
            return ChatMessage(
                id: body.clientMessageID, seq: event.seq, text: body.text, author: event.author, createdAt: event.createdAt,
                deliveryState: .sent, isMine: event.author.role == .visitor && event.author.id == visitor?.rawValue, attachment: body.attachment)
        }
        let stored = Set(messages.map(\.id))
        for item in pending where item.conversationID == id && !stored.contains(item.clientMessageID) {
            messages.append(ChatMessage(
                id: item.clientMessageID, seq: nil, text: item.text, author: .visitor(visitor ?? VisitorID(rawValue: ""), name: nil),
                createdAt: item.createdAt, deliveryState: item.failure.map(ChatMessage.DeliveryState.failed) ?? .pending, isMine: true,
                outgoingFile: item.file))
        }
        return messages
    }
}

/// A message as a chat screen shows it.
public struct ChatMessage: Identifiable, Hashable, Sendable {
    /// Whether the server has the message.
    public enum DeliveryState: Hashable, Sendable {
        /// Written to local storage; waiting for the server.
        case pending
        /// Stored by the server (it has a seq).
        case sent
        /// Refused by the server for good, with the reason.
        case failed(String)
    }

    /// The client message id: stable from `send` to delivery.
    public var id: String
    /// The server's seq, once stored.
    public var seq: Int64?
    /// The text as written.
    public var text: String
    /// Who wrote it.
    public var author: Participant
    /// When it was written (sent by the client, or stored by the server).
    public var createdAt: Date
    /// Pending, sent or failed.
    public var deliveryState: DeliveryState
    /// True for the visitor's own messages.
    public var isMine: Bool
    /// The file the message carries, once the server has it (its `text` is then the caption).
    public var attachment: Attachment?
    /// The file of a message still in the outbox (its `text` is the caption).
    public var outgoingFile: OutgoingFile?

    /// A message as a chat screen shows it.
    /// - Parameters:
    ///   - id: the client message id.
    ///   - seq: the server's seq, once stored.
    ///   - text: the text, or a file's caption.
    ///   - author: who wrote it.
    ///   - createdAt: when it was written.
    ///   - deliveryState: pending, sent or failed.
    ///   - isMine: true for the visitor's own.
    ///   - attachment: the stored file, if any.
    ///   - outgoingFile: the file waiting in the outbox, if any.
    public init(id: String, seq: Int64?, text: String, author: Participant, createdAt: Date, deliveryState: DeliveryState, isMine: Bool,
                attachment: Attachment? = nil, outgoingFile: OutgoingFile? = nil) {
        self.id = id
        self.seq = seq
        self.text = text
        self.author = author
        self.createdAt = createdAt
        self.deliveryState = deliveryState
        self.isMine = isMine
        self.attachment = attachment
        self.outgoingFile = outgoingFile
    }
}
