import Foundation
import ParleyCore

/// A record of events as ``FileStorage`` writes it: the ``HistoryChange/events(_:_:)`` record with
/// the conversation's digest after it.
///
/// `{"conversation_id":"cnv_…","digest":{"count":7,"last_seq":7,"read_seq":5,"unread":1},"events":[…],"kind":"events"}`
///
/// Versions without digests read it as a plain events record (they ignore the key).
struct DigestedEventsRecord: Encodable {
    let conversationID: ConversationID
    let digest: ConversationDigest
    let events: [ConversationEvent]

    private enum CodingKeys: String, CodingKey { case conversationID = "conversation_id", digest, events, kind }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(conversationID, forKey: .conversationID)
        try container.encode(digest, forKey: .digest)
        try container.encode(events, forKey: .events)
        try container.encode("events", forKey: .kind)
    }
}

/// What a start reads of a record of events without decoding it: whose events they are, and the
/// bytes of its digest.
///
/// It relies on the layout ``ParleyJSON``'s encoder gives (sorted keys, so the conversation id and
/// the digest come before the events); a record laid out otherwise is not recognised here and is
/// decoded whole, so this only decides how fast a record is read, never what it means.
struct EventsRecordHead {
    /// The conversation the events belong to.
    let conversationID: ConversationID
    /// The digest's JSON object; nil for a record written before digests.
    let digest: Data?

    private static let opening = Array(#"{"conversation_id":""#.utf8)
    private static let digestKey = Array(#","digest":{"#.utf8)
    private static let eventsKey = Array(#","events":["#.utf8)
    private static let closing = Array(#"],"kind":"events"}"#.utf8)

    /// The head of a record of events, or nil for any other record (or one laid out otherwise).
    init?(payload: Data) {
        guard let head = payload.withUnsafeBytes({ Self.parse($0) }) else { return nil }
        conversationID = ConversationID(rawValue: head.id)
        digest = head.digest.map { payload[(payload.startIndex + $0.lowerBound)..<(payload.startIndex + $0.upperBound)] }
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer) -> (id: String, digest: Range<Int>?)? {
        guard bytes.count > opening.count + closing.count, matches(opening, in: bytes, at: 0),
              matches(closing, in: bytes, at: bytes.count - closing.count) else { return nil }
        var index = opening.count
        while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
            // An escape in the id: not the plain layout.
            if bytes[index] == UInt8(ascii: "\\") { return nil }
            index += 1
        }
        guard index < bytes.count, index > opening.count else { return nil }
        let id = String(decoding: UnsafeRawBufferPointer(rebasing: bytes[opening.count..<index]), as: UTF8.self)
        index += 1
        var digest: Range<Int>?
        if matches(digestKey, in: bytes, at: index) {
            // The digest holds numbers only: its object ends at the first closing brace.
            let start = index + digestKey.count - 1
            guard let end = bytes[start...].firstIndex(of: UInt8(ascii: "}")) else { return nil }
            digest = start..<(end + 1)
            index = end + 1
        }
        guard matches(eventsKey, in: bytes, at: index) else { return nil }
        return (id, digest)
    }

    private static func matches(_ expected: [UInt8], in bytes: UnsafeRawBufferPointer, at offset: Int) -> Bool {
        guard offset >= 0, offset + expected.count <= bytes.count, let base = bytes.baseAddress else { return false }
        return expected.withUnsafeBytes { memcmp($0.baseAddress!, base + offset, expected.count) == 0 }
    }
}
