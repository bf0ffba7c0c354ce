import Foundation
import ParleyCore
import ParleyCrypto
import ParleyStore

/// The text of every paging cursor the API hands out: `kind:field:…` as base64url, opaque to
/// clients. Each list keeps its own cursor type (which kinds it accepts); this is their shared
/// codec and the fields they have in common.
enum PageCursorText {
    /// The largest offset a cursor may carry: pages that deep are read by position instead.
    static let maxOffset = 1_000_000

    static func encode(_ kind: String, _ fields: [String]) -> String {
        Data(([kind] + fields).joined(separator: ":").utf8).base64URLEncoded
    }

    /// The kind and fields of a cursor this server wrote; nil for anything else.
    static func decode(_ text: String) -> (kind: String, fields: [String])? {
        guard let data = Data(base64URLEncoded: text), let plain = String(data: data, encoding: .utf8) else { return nil }
        let parts = plain.split(separator: ":", omittingEmptySubsequences: false).map(String.init)
        guard let kind = parts.first else { return nil }
        return (kind, Array(parts.dropFirst()))
    }

    /// One field holding an offset in `1…maxOffset`.
    static func offset(_ fields: [String]) -> Int? {
        guard fields.count == 1, let offset = Int(fields[0]), offset > 0, offset <= maxOffset else { return nil }
        return offset
    }

    static func offsetFields(_ offset: Int) -> [String] { [String(offset)] }

    /// Two fields: a conversation's activity time in milliseconds and its id.
    static func position(_ fields: [String]) -> ConversationSearchPosition? {
        guard fields.count == 2, let millis = Int64(fields[0]), let id = ConversationID(validating: fields[1]) else { return nil }
        return ConversationSearchPosition(updatedAt: Timestamp.date(millis: millis), id: id)
    }

    static func positionFields(_ position: ConversationSearchPosition) -> [String] {
        [String(Timestamp.millis(position.updatedAt)), position.id.rawValue]
    }
}
