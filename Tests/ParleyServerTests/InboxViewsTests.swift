import Foundation
import ParleyCore
import ParleyStore
import Testing
@testable import ParleyServer

/// The inbox's views and counts as a pure function of the open conversations.
struct InboxViewsTests {
    let me = AgentID.generate()
    let teammate = AgentID.generate()
    let support = QueueID.generate()
    let billing = QueueID.generate()
    let now = Date(timeIntervalSince1970: 1_800_000_000)

    func open(_ name: String, state: ConversationState, agent: AgentID? = nil, queue: QueueID? = nil, rank: Int64? = nil,
              updated: TimeInterval = 0, lastVisitor: Int64 = 0, read: Int64 = 0, waiting: TimeInterval? = nil,
              tags: [String] = [], priority: ConversationPriority = .normal, snoozedFor: TimeInterval? = nil, snoozeSet: TimeInterval = -3_600,
              lastWritten: TimeInterval? = nil) -> OpenConversation {
        let id = ConversationID(rawValue: "cnv_" + name.padding(toLength: 26, withPad: "0", startingAt: 0).uppercased())
        let conversation = Conversation(id: id, appID: AppID.generate(), queueID: queue ?? support, visitorID: .generate(), subject: name,
                                        attributes: [:], state: state, agentID: agent, lastSeq: 10, createdAt: now.addingTimeInterval(-7_200),
                                        updatedAt: now.addingTimeInterval(updated), queuedAt: nil)
        let triage = Triage(conversationID: id, tags: tags, priority: priority, snoozedUntil: snoozedFor.map { now.addingTimeInterval($0) },
                            updatedBy: nil, updatedAt: snoozedFor == nil && tags.isEmpty ? nil : now.addingTimeInterval(snoozeSet))
        return OpenConversation(conversation: conversation, queueRank: rank, triage: triage, lastVisitorMessageSeq: lastVisitor,
                                lastVisitorMessageAt: (lastWritten ?? waiting).map { now.addingTimeInterval($0) },
                                readerReadSeq: read, waitingSince: waiting.map { now.addingTimeInterval($0) })
    }

    func names(_ view: InboxViews.View, _ all: [OpenConversation], filter: InboxViews.Filter = .init(), at: Date? = nil) -> [String] {
        InboxViews.select(view, from: all, me: me, filter: filter, now: at ?? now).compactMap(\.conversation.subject)
    }

    @Test func everyView_selectsAndOrders_snoozesHideUntilTimeOrAVisitorMessage() {
        let all = [
            open("qlate", state: .queued, rank: 20, waiting: -60),
            open("qhead", state: .queued, queue: billing, rank: 10, waiting: -30, tags: ["vip"]),
            open("mineold", state: .assigned, agent: me, updated: -500, lastVisitor: 4, read: 4),
            open("mineunread", state: .assigned, agent: me, updated: -100, lastVisitor: 6, read: 3, waiting: -900, priority: .urgent),
            open("minesnoozed", state: .assigned, agent: me, updated: -50, lastVisitor: 2, read: 2, snoozedFor: 600),
            open("minewoken", state: .assigned, agent: me, updated: -40, lastVisitor: 8, read: 5, waiting: -50, snoozedFor: 600, snoozeSet: -120),
            open("theirs", state: .assigned, agent: teammate, updated: -10, lastVisitor: 1, read: 0, waiting: -2_000),
        ]
        #expect(names(.queued, all) == ["qhead", "qlate"])
        #expect(names(.mine, all) == ["minewoken", "mineunread", "mineold"], "newest activity first; the visitor woke one")
        #expect(names(.unread, all) == ["minewoken", "mineunread"])
        #expect(names(.waiting, all) == ["theirs", "mineunread", "qlate", "minewoken", "qhead"], "the longest wait first")
        #expect(names(.snoozed, all) == ["minesnoozed"])
        #expect(names(.agent, all, filter: .init(agentID: teammate)) == ["theirs"])
        #expect(names(.queue, all, filter: .init(queueID: billing)) == ["qhead"])
        #expect(names(.queued, all, filter: .init(tag: "vip")) == ["qhead"])
        #expect(names(.mine, all, filter: .init(priority: .urgent)) == ["mineunread"])
        // Ten minutes on, the snooze is over.
        #expect(names(.mine, all, at: now.addingTimeInterval(601)) == ["minewoken", "minesnoozed", "mineunread", "mineold"])
        #expect(names(.snoozed, all, at: now.addingTimeInterval(601)).isEmpty)
        // The visitor's newest message counts, not the start of their wait: they wrote before the
        // snooze, then again after it.
        let wroteAgain = open("again", state: .assigned, agent: me, waiting: -600, snoozedFor: 600, snoozeSet: -300, lastWritten: -10)
        #expect(names(.mine, [wroteAgain]) == ["again"])
        let wroteBefore = open("before", state: .assigned, agent: me, waiting: -600, snoozedFor: 600, snoozeSet: -300, lastWritten: -400)
        #expect(names(.snoozed, [wroteBefore]) == ["before"])
        // A snooze on a conversation no longer assigned holds nothing back.
        let requeued = open("back", state: .queued, rank: 1, snoozedFor: 600)
        #expect(names(.queued, [requeued]) == ["back"])
    }

    @Test func counts_matchTheViews_andSayWhenTheNextSnoozeEnds() {
        let all = [
            open("q1", state: .queued, rank: 1, waiting: -5),
            open("q2", state: .queued, queue: billing, rank: 2),
            open("m1", state: .assigned, agent: me, lastVisitor: 3, read: 1, waiting: -5),
            open("m2", state: .assigned, agent: me, snoozedFor: 300),
            open("m3", state: .assigned, agent: me, snoozedFor: 120),
            open("t1", state: .assigned, agent: teammate),
        ]
        let counts = InboxViews.counts(all, me: me, now: now)
        #expect(counts == InboxCounts(queued: 2, mine: 1, unread: 1, waiting: 2, snoozed: 2,
                                      byQueue: [support.rawValue: 3, billing.rawValue: 1], byAgent: [me.rawValue: 1, teammate.rawValue: 1],
                                      nextWake: now.addingTimeInterval(120)))
    }
}
