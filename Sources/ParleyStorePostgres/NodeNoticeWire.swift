import ParleyCore
import ParleyStore

/// The text of the notices nodes send each other on PostgreSQL's `parley_commits` channel:
/// `c NODE APP CONVERSATION FIRST LAST`, ids and numbers only (PostgreSQL caps a payload at
/// 8,000 bytes; these stay under 200).
enum NodeNoticeWire {
    static let channel = "parley_commits"

    static func committed(node: String, app: AppID, conversation: ConversationID, seqs: ClosedRange<Int64>) -> String {
        "c \(node) \(app.rawValue) \(conversation.rawValue) \(seqs.lowerBound) \(seqs.upperBound)"
    }

    /// The notice in `payload`, or nil when it is this node's own, or not one we know (a newer
    /// node's kind of notice is skipped, not misread).
    static func parse(_ payload: String, ownNode: String) -> NodeNotice? {
        let parts = payload.split(separator: " ")
        guard parts.count == 6, parts[0] == "c", parts[1] != ownNode,
              let first = Int64(parts[4]), let last = Int64(parts[5]), first >= 1, first <= last
        else { return nil }
        return .committed(ConversationID(rawValue: String(parts[3])), app: AppID(rawValue: String(parts[2])), seqs: first...last)
    }
}
