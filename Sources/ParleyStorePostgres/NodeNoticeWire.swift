import Foundation
import ParleyCore
import ParleyStore

/// The text of the notices nodes send each other on PostgreSQL's `parley_commits` channel: one
/// notice a line, several lines a payload (``NoticeBatcher``); each line a kind letter, the sending
/// node, then ids and numbers (PostgreSQL caps a payload at 8,000 bytes).
///
/// ```
/// c NODE APP CONVERSATION FIRST LAST [m]   events stored; m: the conversation moved (routing)
/// e NODE APP CONVERSATION FIRST LAST JSON  events stored, carried: each event's JSON, tab-separated
/// n NODE APP CONVERSATION SEQ              internal note stored
/// p NODE                                   agents' connections on NODE changed
/// g NODE                                   NODE forgot nodes gone silent (their last notices may be lost)
/// t NODE APP CONVERSATION 0|1 PARTICIPANT  typing stopped or started; PARTICIPANT is JSON
/// a NODE AGENT 0|1                         agent changed; 1: all of its sessions ended
/// s NODE AGENT TOKENHASH                   one agent session ended
/// v NODE VISITOR TOKENHASH                 one visitor session signed out
/// m NODE APP                               the app's masking rules changed
/// ```
enum NodeNoticeWire {
    static let channel = "parley_commits"
    /// The longest payload sent: PostgreSQL refuses one of 8,000 bytes or more.
    static let maxPayloadBytes = 7_900
    /// The longest line that carries its events; a longer one names the seqs only, and the
    /// receivers read the events from the database.
    static let maxCarryingLineBytes = 3_000

    /// A commit's notice: with the events' JSON when given and short enough (JSON text never holds
    /// a raw tab or newline, so both are free to separate events and notices).
    static func committed(
        node: String, app: AppID, conversation: ConversationID, seqs: ClosedRange<Int64>, moved: Bool, events: [String]? = nil
    ) -> String {
        let ids = "\(node) \(app.rawValue) \(conversation.rawValue) \(seqs.lowerBound) \(seqs.upperBound)"
        if !moved, let events, events.count == seqs.count {
            let line = "e \(ids) " + events.joined(separator: "\t")
            if line.utf8.count <= maxCarryingLineBytes { return line }
        }
        return "c \(ids)" + (moved ? " m" : "")
    }

    /// The notices in a batched payload, one a line, skipping this node's own and unknown ones.
    static func parseBatch(_ payload: String, ownNode: String) -> [NodeNotice] {
        payload.split(separator: "\n").compactMap { parse(String($0), ownNode: ownNode) }
    }

    static func noteAdded(node: String, app: AppID, conversation: ConversationID, seq: Int64) -> String {
        "n \(node) \(app.rawValue) \(conversation.rawValue) \(seq)"
    }

    static func presence(node: String) -> String { "p \(node)" }

    /// NODE found other nodes silent too long and forgot them.
    static func nodesLost(node: String) -> String { "g \(node)" }

    static func signal(node: String, _ signal: NodeSignal) throws -> String {
        switch signal {
        case .typing(let conversation, let app, let participant, let isTyping):
            let json = String(decoding: try ParleyJSON.encode(participant), as: UTF8.self)
            return "t \(node) \(app.rawValue) \(conversation.rawValue) \(isTyping ? 1 : 0) \(json)"
        case .agentChanged(let agent, let sessionsEnded):
            return "a \(node) \(agent.rawValue) \(sessionsEnded ? 1 : 0)"
        case .sessionEnded(let agent, let tokenHash):
            return "s \(node) \(agent.rawValue) \(tokenHash)"
        case .visitorSessionEnded(let visitor, let tokenHash):
            return "v \(node) \(visitor.rawValue) \(tokenHash)"
        case .maskingChanged(let app):
            return "m \(node) \(app.rawValue)"
        case .triageChanged(let conversation, let app):
            return "r \(node) \(app.rawValue) \(conversation.rawValue)"
        case .answersChanged(let conversation, let app):
            return "q \(node) \(app.rawValue) \(conversation.rawValue)"
        case .tagsChanged(let app):
            return "g \(node) \(app.rawValue)"
        }
    }

    /// The notice in `payload`, or nil when it is this node's own, or not one we know (a newer
    /// node's kind of notice is skipped, not misread).
    static func parse(_ payload: String, ownNode: String) -> NodeNotice? {
        // A typing participant's JSON may hold spaces: it is everything after the fifth space.
        let parts = payload.hasPrefix("t ") ? payload.split(separator: " ", maxSplits: 5)
            : payload.hasPrefix("e ") ? payload.split(separator: " ", maxSplits: 6) : payload.split(separator: " ")
        guard parts.count >= 2, parts[1] != ownNode else { return nil }
        let field = { (index: Int) in String(parts[index]) }
        switch (parts[0], parts.count) {
        case ("c", 6), ("c", 7):
            guard let first = Int64(parts[4]), let last = Int64(parts[5]), first >= 1, first <= last,
                  parts.count == 6 || parts[6] == "m"
            else { return nil }
            return .committed(ConversationID(rawValue: field(3)), app: AppID(rawValue: field(2)), seqs: first...last, moved: parts.count == 7)
        case ("e", 7):
            guard let first = Int64(parts[4]), let last = Int64(parts[5]), first >= 1, first <= last else { return nil }
            let events = parts[6].split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
            guard events.count == last - first + 1 else { return nil }
            return .committed(ConversationID(rawValue: field(3)), app: AppID(rawValue: field(2)), seqs: first...last, moved: false, events: events)
        case ("n", 5):
            guard let seq = Int64(parts[4]), seq >= 1 else { return nil }
            return .noteAdded(ConversationID(rawValue: field(3)), app: AppID(rawValue: field(2)), seq: seq)
        case ("p", 2):
            return .presenceChanged
        case ("g", 2):
            return .nodeLost
        case ("t", 6):
            guard parts[4] == "0" || parts[4] == "1",
                  let participant = try? ParleyJSON.decode(Participant.self, from: Data(parts[5].utf8))
            else { return nil }
            return .signal(.typing(
                ConversationID(rawValue: field(3)), app: AppID(rawValue: field(2)), participant: participant, isTyping: parts[4] == "1"))
        case ("a", 4):
            guard parts[3] == "0" || parts[3] == "1" else { return nil }
            return .signal(.agentChanged(AgentID(rawValue: field(2)), sessionsEnded: parts[3] == "1"))
        case ("r", 4):
            return .signal(.triageChanged(ConversationID(rawValue: field(3)), app: AppID(rawValue: field(2))))
        case ("q", 4):
            return .signal(.answersChanged(ConversationID(rawValue: field(3)), app: AppID(rawValue: field(2))))
        case ("g", 3):
            return .signal(.tagsChanged(AppID(rawValue: field(2))))
        case ("s", 4):
            return .signal(.sessionEnded(AgentID(rawValue: field(2)), tokenHash: field(3)))
        case ("v", 4):
            return .signal(.visitorSessionEnded(VisitorID(rawValue: field(2)), tokenHash: field(3)))
        case ("m", 3):
            return .signal(.maskingChanged(AppID(rawValue: field(2))))
        default:
            return nil
        }
    }
}
