import Foundation
import ParleyCore

/// What a conversation's stored events add up to, folded one event at a time: the figures of a
/// ``StoredConversationEntry``. ``FileStorage`` writes it into each record of events, as it stands
/// after that record, so a start reads it from a conversation's last record instead of decoding
/// every event.
///
/// The unread count must drop when the visitor marks read up to a seq below the newest message; the
/// seqs of the unread messages are kept for that while they are known (the events were folded
/// here), and only the count is stored. A digest read back from a record does not know them:
/// after such a read marker ``isUnreadCountKnown`` is false and the owner folds the events again.
struct ConversationDigest: Sendable, Hashable, Codable {
    /// The seq of the newest event (0: none).
    private(set) var lastSeq: Int64 = 0
    /// Events folded (those not above `lastSeq`, replay overlaps, are not counted).
    private(set) var eventCount = 0
    /// The highest seq the visitor marked read.
    private(set) var visitorReadSeq: Int64 = 0
    /// Messages by others above `visitorReadSeq`.
    private(set) var unreadCount = 0
    /// Their seqs, when known.
    private var unreadSeqs: [Int64]? = []
    /// False once a read marker fell between unread messages whose seqs were not known.
    private(set) var isUnreadCountKnown = true

    private enum CodingKeys: String, CodingKey {
        case lastSeq = "last_seq", eventCount = "count", visitorReadSeq = "read_seq", unreadCount = "unread"
    }

    /// A digest of no events.
    init() {}

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        lastSeq = try container.decode(Int64.self, forKey: .lastSeq)
        eventCount = try container.decode(Int.self, forKey: .eventCount)
        visitorReadSeq = try container.decode(Int64.self, forKey: .visitorReadSeq)
        unreadCount = try container.decode(Int.self, forKey: .unreadCount)
        // Only the count is stored: known again once the visitor has read everything.
        unreadSeqs = unreadCount == 0 ? [] : nil
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(lastSeq, forKey: .lastSeq)
        try container.encode(eventCount, forKey: .eventCount)
        try container.encode(visitorReadSeq, forKey: .visitorReadSeq)
        try container.encode(unreadCount, forKey: .unreadCount)
    }

    /// Folds in the next stored event; one not above `lastSeq` is ignored, as storage ignores it.
    mutating func add(_ event: ConversationEvent) {
        guard event.seq > lastSeq else { return }
        let previous = lastSeq
        lastSeq = event.seq
        eventCount += 1
        switch event.body {
        case .message where event.author.role != .visitor && event.seq > visitorReadSeq,
             .pagePushed where event.author.role != .visitor && event.seq > visitorReadSeq:
            unreadCount += 1
            unreadSeqs?.append(event.seq)
        case .read(let marker) where event.author.role == .visitor && marker.readSeq > visitorReadSeq:
            visitorReadSeq = marker.readSeq
            if marker.readSeq >= previous {
                unreadCount = 0
                unreadSeqs = []
            } else if let seqs = unreadSeqs {
                unreadSeqs = seqs.filter { $0 > marker.readSeq }
                unreadCount = unreadSeqs?.count ?? 0
            } else {
                isUnreadCountKnown = false
            }
        default:
            break
        }
    }

    /// The digest of some events, from none.
    init(folding events: some Sequence<ConversationEvent>) {
        for event in events { add(event) }
    }

    /// The index entry of a conversation with this digest.
    func entry(summary: Conversation?) -> StoredConversationEntry {
        StoredConversationEntry(summary: summary, lastSeq: lastSeq, eventCount: eventCount, visitorReadSeq: visitorReadSeq, unreadCount: unreadCount)
    }
}
