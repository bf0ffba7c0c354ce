import Foundation
import ParleyCore
import ParleyStore
import Testing

/// ``ConversationLifecycle/decide(_:context:effects:)`` without a store: what each change reads,
/// the rows it decides to write, and the refusals, as a table. Both stores run exactly these writes
/// (the conformance suite checks the result on each).
@Suite("ConversationLifecycle.decide")
struct CommitDecisionTests {
    typealias T = ConversationLifecyclePlanTests
    static let later = Date(timeIntervalSince1970: 1_800_000_100)

    /// A write in brief, so a table row reads like the transaction it stands for.
    static func brief(_ write: StoreWrite) -> String {
        switch write {
        case .insertConversation(let c, let rank): "insert conversation \(c.state) rank \(rank.map(String.init) ?? "-") seq \(c.lastSeq)"
        case .updateConversation(let c, let rank):
            "update conversation \(c.state) agent \(c.agentID == nil ? "-" : "yes") rank \(rank.map(String.init) ?? "-") seq \(c.lastSeq)"
        case .touchConversation(_, let lastSeq, _): "touch seq \(lastSeq)"
        case .insertEvent(let event, _): "event \(event.seq) \(event.body.type)"
        case .setReadMarker(_, let reader, let seq): "read marker \(reader.role.rawValue) \(seq)"
        case .recordWait: "wait sample"
        case .saveFormAnswers(_, let submission): "form \(submission.kind.rawValue)"
        case .enqueue(let entry): "outbox \(entry.kind) \(entry.seq)"
        case .insertAttachment(let record): "attachment \(record.seq)"
        }
    }

    struct Row: Sendable, CustomTestStringConvertible {
        let name: String
        let change: ConversationChange
        let context: CommitContext
        /// The writes in brief, or the kind of refusal.
        let writes: [String]?
        let refusal: StoreErrorKind?
        var testDescription: String { name }
        init(_ name: String, _ change: ConversationChange, _ context: CommitContext, writes: [String]) {
            (self.name, self.change, self.context, self.writes, self.refusal) = (name, change, context, writes, nil)
        }
        init(_ name: String, _ change: ConversationChange, _ context: CommitContext, refused: StoreErrorKind) {
            (self.name, self.change, self.context, self.writes, self.refusal) = (name, change, context, nil, refused)
        }
    }

    static func stored(_ state: ConversationState, load: AgentLoad? = nil, queues: Set<QueueID> = [], read: Int64? = nil) -> CommitContext {
        CommitContext(current: T.conversation(state), currentRank: T.rank(state), queuesFound: queues, agentLoad: load, previousRead: read,
                      assignedAgentName: "Ada")
    }

    static func post(_ author: Participant, id: String = "c1", text: String = "hi", file: ParleyCore.Attachment? = nil) -> ConversationChange {
        .postMessage(.init(conversationID: T.conversationID, appID: T.app, author: author, clientMessageID: id, text: text,
                           attachment: file, reopenRank: T.reopenRank, at: later))
    }

    static let file = ParleyCore.Attachment(id: .generate(), name: "a.png", contentType: "image/png", size: 10, sha256: String(repeating: "a", count: 64))

    static var storedMessage: (ConversationEvent, String) {
        let event = ConversationEvent(conversationID: T.conversationID, seq: 3, createdAt: T.opened, author: T.visitor,
                                      body: .message(MessageBody(clientMessageID: "c1", text: "hi")))
        return (event, String(decoding: try! ParleyJSON.encode(event), as: UTF8.self))
    }

    static let assign = ConversationChange.assign(.init(conversationID: T.conversationID, appID: T.app, agent: T.agent, at: later))
    static let otherQueue = QueueID.generate()
    static func transfer(_ target: ConversationChange.Transfer.Target) -> ConversationChange {
        .transfer(.init(conversationID: T.conversationID, appID: T.app, by: T.agent, byAdmin: false, target: target, at: later))
    }
    static func read(_ seq: Int64) -> ConversationChange {
        .markRead(.init(conversationID: T.conversationID, appID: T.app, by: T.visitor, seq: seq, at: later))
    }
    static let form = FormSubmission(kind: .preChat, answers: ["name": .text("Vera")], submittedAt: T.now)
    static var openWithForm: ConversationChange {
        .open(.init(id: T.conversationID, appID: T.app, queueID: T.queue, visitorID: T.visitorID, visitorName: "Vera", subject: nil,
                    attributes: [:], queueRank: 42, at: later, formSubmission: form))
    }

    static let rows: [Row] = [
        // Opening: the queue and the visitor must be the app's.
        Row("open", T.openChange(), CommitContext(current: nil, currentRank: nil, queuesFound: [T.queue], visitorFound: true),
            writes: ["insert conversation queued rank 42 seq 1", "event 1 state_changed"]),
        Row("open with a form", openWithForm, CommitContext(current: nil, currentRank: nil, queuesFound: [T.queue], visitorFound: true),
            writes: ["insert conversation queued rank 42 seq 1", "form pre_chat", "event 1 state_changed"]),
        Row("open in another app's queue", T.openChange(), CommitContext(current: nil, currentRank: nil, visitorFound: true), refused: .notFound),
        Row("open for another app's visitor", T.openChange(), CommitContext(current: nil, currentRank: nil, queuesFound: [T.queue]), refused: .notFound),
        Row("open twice", T.openChange(), CommitContext(current: T.conversation(.queued), currentRank: 1, queuesFound: [T.queue], visitorFound: true),
            refused: .duplicate),

        // Messages: the hot path touches the row's activity and adds one event.
        Row("message while assigned", post(T.visitor), stored(.assigned), writes: ["touch seq 6", "event 6 message"]),
        Row("message while queued", post(T.visitor), stored(.queued), writes: ["touch seq 6", "event 6 message"]),
        Row("message reopens", post(T.visitor), stored(.ended), writes: [
            "update conversation queued agent - rank \(T.reopenRank) seq 7", "event 6 state_changed", "event 7 message",
        ]),
        Row("message with a file", post(T.visitor, text: "", file: file), stored(.assigned), writes: ["touch seq 6", "attachment 6", "event 6 message"]),
        Row("a file resent as another file", post(T.visitor, file: file), {
            var context = stored(.assigned)
            context.storedMessage = storedMessage
            return context
        }(), refused: .idempotencyConflict),
        Row("message by an agent not assigned", post(T.otherAgent), stored(.assigned), refused: .invalidState),
        Row("message into another visitor's conversation", post(T.otherVisitor), stored(.assigned), refused: .notFound),
        Row("message into no conversation", post(T.visitor), CommitContext(current: nil, currentRank: nil), refused: .notFound),

        // Assignments count the agent's load first.
        Row("assign", assign, stored(.queued, load: AgentLoad(capacity: 3, assigned: 2)), writes: [
            "update conversation assigned agent yes rank - seq 7", "wait sample", "event 6 state_changed", "event 7 participant_joined",
        ]),
        Row("assign to a full agent", assign, stored(.queued, load: AgentLoad(capacity: 3, assigned: 3)), refused: .atCapacity),
        Row("assign to another app's agent", assign, stored(.queued), refused: .notFound),
        Row("assign an assigned one", assign, stored(.assigned, load: AgentLoad(capacity: 3, assigned: 0)), refused: .invalidState),

        // Transfers.
        Row("transfer to an agent", transfer(.agent(T.otherAgent)), stored(.assigned, load: AgentLoad(capacity: 3, assigned: 0)), writes: [
            "update conversation assigned agent yes rank - seq 8", "event 6 participant_left", "event 7 state_changed", "event 8 participant_joined",
        ]),
        Row("transfer to a queue", transfer(.queue(otherQueue, rank: 9)), stored(.assigned, queues: [otherQueue]), writes: [
            "update conversation queued agent - rank 9 seq 7", "event 6 participant_left", "event 7 state_changed",
        ]),
        Row("transfer to another app's queue", transfer(.queue(otherQueue, rank: 9)), stored(.assigned), refused: .notFound),

        // Ends, and an end that changes nothing.
        Row("visitor ends", .end(.init(conversationID: T.conversationID, appID: T.app, by: T.visitor, at: later)), stored(.assigned), writes: [
            "update conversation ended agent yes rank - seq 7", "event 6 state_changed", "event 7 participant_left",
        ]),
        Row("end an ended one", .end(.init(conversationID: T.conversationID, appID: T.app, by: T.visitor, at: later)), stored(.ended), writes: []),

        // Reads: only forward.
        Row("read", read(4), stored(.assigned, read: 2), writes: ["touch seq 6", "event 6 read", "read marker visitor 4"]),
        Row("read again", read(4), stored(.assigned, read: 4), writes: []),
        Row("read past the end", read(9), stored(.assigned), refused: .invalidState),
    ]

    @Test(arguments: rows)
    func decide_row(_ row: Row) throws {
        if let refusal = row.refusal {
            #expect(throws: StoreError.self) { try ConversationLifecycle.decide(row.change, context: row.context) }
            do {
                _ = try ConversationLifecycle.decide(row.change, context: row.context)
            } catch let error as StoreError {
                #expect(refusal.matches(error), "\(error)")
            }
            return
        }
        let decision = try ConversationLifecycle.decide(row.change, context: row.context)
        #expect(decision.writes.map(Self.brief) == row.writes)
        #expect(!decision.commit.isDuplicate)
        // The commit answers exactly the events written, each with the JSON written.
        let written = decision.writes.compactMap { write -> (ConversationEvent, String)? in
            if case .insertEvent(let event, let json) = write { (event, json) } else { nil }
        }
        #expect(decision.commit.events == written.map(\.0))
        #expect(decision.commit.encodedEvents ?? [] == written.map(\.1))
        for (event, json) in written { #expect(try ParleyJSON.decode(ConversationEvent.self, from: Data(json.utf8)) == event) }
    }

    @Test func reads_askOnlyWhatTheChangeNeeds() {
        #expect(ConversationLifecycle.reads(for: Self.post(T.visitor)) == {
            var reads = CommitReads()
            reads.clientMessageID = "c1"
            return reads
        }(), "a message reads one thing besides its row: the idempotency lookup")
        #expect(ConversationLifecycle.reads(for: Self.assign).agentLoad == T.agentID)
        #expect(ConversationLifecycle.reads(for: Self.read(3)).readMarker == T.visitor)
        #expect(ConversationLifecycle.reads(for: T.openChange()).queues == [T.queue])
        #expect(ConversationLifecycle.reads(for: T.openChange()).visitor == T.visitorID)
    }

    @Test func resentMessage_isAnsweredFromTheStore_withNoWrites() throws {
        var context = Self.stored(.assigned)
        context.storedMessage = Self.storedMessage
        let decision = try ConversationLifecycle.decide(Self.post(T.visitor), context: context)
        #expect(decision.writes.isEmpty && decision.commit.isDuplicate)
        #expect(decision.commit.events == [Self.storedMessage.0] && decision.commit.encodedEvents == [Self.storedMessage.1])
        #expect(throws: StoreError.idempotencyConflict("client_message_id c1 was used for another message")) {
            try ConversationLifecycle.decide(Self.post(T.visitor, text: "changed"), context: context)
        }
        // Another visitor learns nothing, not even that the id is taken.
        #expect(throws: StoreError.notFound("conversation not found")) {
            try ConversationLifecycle.decide(Self.post(T.otherVisitor), context: context)
        }
    }

    struct EveryEvent: CommitEffects {
        func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry] {
            commit.events.map { OutboxEntry(id: "o\($0.seq)", kind: "test", appID: commit.conversation.appID,
                                            conversationID: $0.conversationID, seq: $0.seq, payload: "{}", dueAt: $0.createdAt) }
        }
    }

    @Test func effects_becomeOutboxWrites_afterTheEvents_andNeverForADuplicateOrARefusal() throws {
        let decision = try ConversationLifecycle.decide(Self.post(T.visitor), context: Self.stored(.assigned), effects: EveryEvent())
        #expect(decision.writes.map(Self.brief) == ["touch seq 6", "event 6 message", "outbox test 6"])
        var duplicate = Self.stored(.assigned)
        duplicate.storedMessage = Self.storedMessage
        #expect(try ConversationLifecycle.decide(Self.post(T.visitor), context: duplicate, effects: EveryEvent()).writes.isEmpty)
        #expect(try ConversationLifecycle.decide(Self.read(4), context: Self.stored(.assigned, read: 4), effects: EveryEvent()).writes.isEmpty)
    }
}
