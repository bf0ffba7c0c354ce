import Foundation
import ParleyCore
import ParleyStore
@testable import ParleyStorePostgres
import Logging
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
            (try NodeNoticeWire.signal(node: "a", .visitorSessionEnded(VisitorID(rawValue: "vis_01J00000000000000000000000"), tokenHash: "2c26b46b68ffc68f")),
             .signal(.visitorSessionEnded(VisitorID(rawValue: "vis_01J00000000000000000000000"), tokenHash: "2c26b46b68ffc68f"))),
            (try NodeNoticeWire.signal(node: "a", .maskingChanged(app)), .signal(.maskingChanged(app))),
            (try NodeNoticeWire.signal(node: "a", .triageChanged(conversation, app: app)), .signal(.triageChanged(conversation, app: app))),
            (try NodeNoticeWire.signal(node: "a", .answersChanged(conversation, app: app)), .signal(.answersChanged(conversation, app: app))),
            (try NodeNoticeWire.signal(node: "a", .tagsChanged(app)), .signal(.tagsChanged(app))),
        ]
        for (payload, notice) in cases {
            #expect(NodeNoticeWire.parse(payload, ownNode: "b") == notice, "\(payload)")
            #expect(NodeNoticeWire.parse(payload, ownNode: "a") == nil, "own notice skipped: \(payload)")
            #expect(payload.utf8.count < 8000)
        }
    }

    @Test func malformedOrUnknown_isSkipped() {
        for payload in ["", "c", "c a", "c a app cnv 5 4", "c a app cnv 0 1", "c a app cnv 1 2 x", "c a app cnv one 2",
                        "n a app cnv 0", "t a app cnv 2 {}", "t a app cnv 1 not-json", "a a agt maybe", "z a whatever", "p", "m a", "m a app extra"] {
            #expect(NodeNoticeWire.parse(payload, ownNode: "b") == nil, "\(payload)")
        }
    }

    @Test func carriedEvents_readBackAsWritten_andAMoveOrALongLineCarriesNone() {
        let events = [#"{"seq":4,"text":"a b\tc"}"#, #"{"seq":5,"text":"ünïcode and spaces"}"#]
        let line = NodeNoticeWire.committed(node: "a", app: app, conversation: conversation, seqs: 4...5, moved: false, events: events)
        #expect(line.hasPrefix("e "))
        #expect(NodeNoticeWire.parse(line, ownNode: "b") == .committed(conversation, app: app, seqs: 4...5, moved: false, events: events))
        let moved = NodeNoticeWire.committed(node: "a", app: app, conversation: conversation, seqs: 4...5, moved: true, events: events)
        #expect(NodeNoticeWire.parse(moved, ownNode: "b") == .committed(conversation, app: app, seqs: 4...5, moved: true))
        let long = [String(repeating: "x", count: NodeNoticeWire.maxCarryingLineBytes)]
        let named = NodeNoticeWire.committed(node: "a", app: app, conversation: conversation, seqs: 4...4, moved: false, events: long)
        #expect(NodeNoticeWire.parse(named, ownNode: "b") == .committed(conversation, app: app, seqs: 4...4, moved: false))
        #expect(NodeNoticeWire.parse("e a app cnv 4 5 {}", ownNode: "b") == nil, "as many events as seqs, or nothing")
    }

    @Test func batches_packInOrder_underTheLimit_andParseBackLineByLine() {
        let lines = (1...300).map { NodeNoticeWire.committed(node: "a", app: app, conversation: conversation, seqs: $0...$0, moved: $0 % 7 == 0) }
        let payloads = NoticeBatcher.pack(lines)
        #expect(payloads.count > 1)
        #expect(payloads.allSatisfy { $0.utf8.count <= NodeNoticeWire.maxPayloadBytes })
        let notices = payloads.flatMap { NodeNoticeWire.parseBatch($0, ownNode: "b") }
        #expect(notices == lines.map { NodeNoticeWire.parse($0, ownNode: "b")! })
        #expect(payloads.flatMap { NodeNoticeWire.parseBatch($0, ownNode: "a") }.isEmpty, "a node skips its own")
        #expect(NodeNoticeWire.parse(NodeNoticeWire.nodesLost(node: "a"), ownNode: "b") == .nodeLost)
    }

    @Test func batcher_sendsEveryLineOnce_inOrder_inFewerPayloads() async {
        let sent = Locked<[String]>([])
        let batcher = NoticeBatcher(logger: Logger(label: "test")) { payload in sent.withLock { $0.append(payload) } }
        let lines = (1...500).map { "p node\($0)" }
        for line in lines { batcher.add(line) }
        await batcher.flush()
        let payloads = sent.withLock { $0 }
        #expect(payloads.flatMap { $0.split(separator: "\n").map(String.init) } == lines)
        #expect(payloads.count < lines.count / 10, "batched: \(payloads.count) payloads for \(lines.count) lines")
        #expect(batcher.statistics.lines == lines.count)
    }

    @Test func batcher_retriesAFailedPayload() async {
        let attempts = Locked(0)
        let sent = Locked<[String]>([])
        let batcher = NoticeBatcher(logger: Logger(label: "test")) { payload in
            let attempt = attempts.withLock { count in
                count += 1
                return count
            }
            if attempt == 1 { throw StoreError.invalidState("connection reset") }
            sent.withLock { $0.append(payload) }
        }
        batcher.add("p node1")
        await batcher.flush()
        #expect(sent.withLock { $0 } == ["p node1"])
    }
}
