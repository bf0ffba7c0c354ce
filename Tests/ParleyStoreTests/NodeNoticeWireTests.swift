import Foundation
import ParleyCore
import ParleyStore
@testable import ParleyStorePostgres
import Testing

/// The text nodes send each other on `parley_commits`: every kind reads back as written, a node's
/// own notices are skipped, and anything malformed or unknown is skipped rather than misread.
struct NodeNoticeWireTests {
    let app = AppID(rawValue: "app_01J00000000000000000000000")
    let conversation = ConversationID(rawValue: "cnv_01J00000000000000000000000")
    let agent = AgentID(rawValue: "agt_01J00000000000000000000000")

    @Test func everyKind_readsBackAsWritten_byAnotherNode() throws {
        let participant = Participant.visitor(VisitorID(rawValue: "vis_01J00000000000000000000000"), name: "Zoë  de la Cruz {\"x\"}")
        let cases: [(String, NodeNotice)] = [
            (NodeNoticeWire.committed(node: "a", app: app, conversation: conversation, seqs: 4...9, moved: false),
             .committed(conversation, app: app, seqs: 4...9, moved: false)),
            (NodeNoticeWire.committed(node: "a", app: app, conversation: conversation, seqs: 1...1, moved: true),
             .committed(conversation, app: app, seqs: 1...1, moved: true)),
            (NodeNoticeWire.noteAdded(node: "a", app: app, conversation: conversation, seq: 3), .noteAdded(conversation, app: app, seq: 3)),
            (NodeNoticeWire.presence(node: "a"), .presenceChanged),
            (try NodeNoticeWire.signal(node: "a", .typing(conversation, app: app, participant: participant, isTyping: true)),
             .signal(.typing(conversation, app: app, participant: participant, isTyping: true))),
            (try NodeNoticeWire.signal(node: "a", .agentChanged(agent, sessionsEnded: true)), .signal(.agentChanged(agent, sessionsEnded: true))),
            (try NodeNoticeWire.signal(node: "a", .sessionEnded(agent, tokenHash: "9f86d081884c7d65")),
             .signal(.sessionEnded(agent, tokenHash: "9f86d081884c7d65"))),
        ]
        for (payload, notice) in cases {
            #expect(NodeNoticeWire.parse(payload, ownNode: "b") == notice, "\(payload)")
            #expect(NodeNoticeWire.parse(payload, ownNode: "a") == nil, "own notice skipped: \(payload)")
            #expect(payload.utf8.count < 8000)
        }
    }

    @Test func malformedOrUnknown_isSkipped() {
        for payload in ["", "c", "c a", "c a app cnv 5 4", "c a app cnv 0 1", "c a app cnv 1 2 x", "c a app cnv one 2",
                        "n a app cnv 0", "t a app cnv 2 {}", "t a app cnv 1 not-json", "a a agt maybe", "z a whatever", "p"] {
            #expect(NodeNoticeWire.parse(payload, ownNode: "b") == nil, "\(payload)")
        }
    }
}
