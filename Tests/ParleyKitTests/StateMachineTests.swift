import Foundation
import ParleyCore
import ParleyKit
import Testing

struct ReconnectPolicyTests {
    @Test(arguments: [(1, 0.5), (2, 1.0), (3, 2.0), (4, 4.0), (5, 8.0), (6, 16.0), (7, 30.0), (12, 30.0)])
    func standardPolicy_followsTheDocumentedTable(attempt: Int, seconds: Double) {
        let delay = ReconnectPolicy.standard.delay(attempt: attempt, random: 0)
        #expect(abs(Double(delay.components.seconds) + Double(delay.components.attoseconds) / 1e18 - seconds) < 0.001)
    }

    @Test func jitter_staysWithinItsBand() {
        let low = ReconnectPolicy.standard.delay(attempt: 3, random: -1)
        let high = ReconnectPolicy.standard.delay(attempt: 3, random: 1)
        #expect(low == .seconds(1.6))
        #expect(high == .seconds(2.4))
    }
}

struct ConnectionMachineTests {
    @Test func start_connect_lose_retry_connect() {
        var machine = ConnectionMachine(policy: .standard)
        #expect(machine.start() == [.publish(.connecting), .connect])
        #expect(machine.opened() == [.publish(.connected)])
        let lost = machine.lost(.network("reset"), random: 0)
        #expect(lost == [.publish(.waitingToReconnect(delay: .milliseconds(500))), .scheduleRetry(.milliseconds(500))])
        #expect(machine.retryTimerFired() == [.publish(.connecting), .connect])
        let again = machine.lost(.network("refused"), random: 0)
        #expect(again == [.publish(.waitingToReconnect(delay: .seconds(1))), .scheduleRetry(.seconds(1))])
        #expect(machine.reconnectNow() == [.cancelRetry, .publish(.connecting), .connect])
        #expect(machine.opened() == [.publish(.connected)])
        #expect(machine.attempt == 0)
    }

    @Test func fatalError_fails_withoutRetry() {
        var machine = ConnectionMachine(policy: .standard)
        _ = machine.start()
        let refused = ParleyError.unauthorized("bad token")
        #expect(machine.lost(refused, random: 0) == [.publish(.failed(refused))])
        #expect(machine.retryTimerFired().isEmpty)
    }

    @Test func stop_fromEveryState_closesOrCancels() {
        var connected = ConnectionMachine(policy: .standard)
        _ = connected.start()
        _ = connected.opened()
        #expect(connected.stop() == [.closeSocket, .publish(.stopped)])
        var waiting = ConnectionMachine(policy: .standard)
        _ = waiting.start()
        _ = waiting.lost(.network("x"), random: 0)
        #expect(waiting.stop() == [.cancelRetry, .publish(.stopped)])
        #expect(waiting.stop().isEmpty)
        #expect(waiting.reconnectNow().isEmpty)
    }
}

struct OutboxMachineTests {
    let first = ConversationID.generate()
    let second = ConversationID.generate()

    func item(_ id: String, _ conversation: ConversationID) -> OutboxItem {
        OutboxItem(clientMessageID: id, conversationID: conversation, text: id, createdAt: Date(timeIntervalSince1970: 0))
    }

    func event(_ item: OutboxItem, seq: Int64) -> ConversationEvent {
        ConversationEvent(conversationID: item.conversationID, seq: seq, createdAt: item.createdAt, author: .system,
                          body: .message(.init(clientMessageID: item.clientMessageID, text: item.text)))
    }

    @Test func offline_storesEachMessageButDoesNotTransmit_online_sendsOnePerConversationInOrder() {
        var outbox = OutboxMachine()
        let a1 = item("a1", first), a2 = item("a2", first), b1 = item("b1", second)
        #expect(outbox.enqueue(a1) == [.store(a1)])
        #expect(outbox.enqueue(a2) == [.store(a2)])
        #expect(outbox.enqueue(b1) == [.store(b1)])
        #expect(outbox.items == [a1, a2, b1])
        #expect(outbox.connectionOpened() == [.transmit(a1), .transmit(b1)])
        #expect(outbox.acknowledged("a1", event: event(a1, seq: 2)) == [.remove(clientMessageID: "a1"), .delivered(a1, event(a1, seq: 2)), .transmit(a2)])
        #expect(outbox.items == [a2, b1])
    }

    @Test func lostConnection_sendsTheInFlightMessageAgain_withTheSameID() {
        var outbox = OutboxMachine()
        let a1 = item("a1", first)
        _ = outbox.connectionOpened()
        #expect(outbox.enqueue(a1) == [.store(a1), .transmit(a1)])
        #expect(outbox.connectionLost().isEmpty)
        #expect(outbox.connectionOpened() == [.transmit(a1)])
    }

    @Test func fatalRefusal_failsTheMessage_andHoldsBackTheRestOfItsConversation() {
        var outbox = OutboxMachine()
        let a1 = item("a1", first), a2 = item("a2", first)
        _ = outbox.connectionOpened()
        _ = outbox.enqueue(a1)
        _ = outbox.enqueue(a2)
        var failed = a1
        failed.failure = "too long"
        #expect(outbox.refused("a1", reason: "too long", isFatal: true) == [.update(failed), .failed(failed, reason: "too long")])
        #expect(outbox.retry("a1") == [.update(a1), .transmit(a1)])
        #expect(outbox.refused("a1", reason: "busy", isFatal: false).isEmpty)
        _ = outbox.refused("a1", reason: "gone", isFatal: true)
        #expect(outbox.discard("a1") == [.remove(clientMessageID: "a1"), .transmit(a2)])
        #expect(outbox.items == [a2])
    }
}

struct ConversationSnapshotTests {
    let id = ConversationID.generate()
    let agent = Participant.agent(AgentID.generate(), name: "Bob")
    let visitor = Participant.visitor(VisitorID.generate(), name: "Ann")

    func event(_ seq: Int64, _ author: Participant, _ body: EventBody) -> ConversationEvent {
        ConversationEvent(conversationID: id, seq: seq, createdAt: Date(timeIntervalSince1970: Double(seq)), author: author, body: body)
    }

    @Test func events_buildStateAgentAndUnread_andReplaysAreIgnored() {
        var snapshot = ConversationSnapshot(id: id)
        snapshot.apply(event(1, visitor, .stateChanged(.init(from: nil, to: .queued, reason: .opened))))
        #expect(snapshot.state == .queued)
        snapshot.apply(event(2, .system, .stateChanged(.init(from: .queued, to: .assigned, reason: .assigned))))
        snapshot.apply(event(3, agent, .participantJoined(.init(participant: agent))))
        #expect(snapshot.agent == agent)
        snapshot.apply(event(4, agent, .message(.init(clientMessageID: "a", text: "Hi"))))
        snapshot.apply(event(5, agent, .message(.init(clientMessageID: "b", text: "Hello?"))))
        #expect(snapshot.unreadCount == 2)
        #expect(snapshot.apply(event(5, agent, .message(.init(clientMessageID: "b", text: "Hello?")))) == false)
        snapshot.apply(event(6, visitor, .read(.init(readSeq: 5))))
        #expect(snapshot.unreadCount == 0)
        snapshot.apply(event(7, agent, .participantLeft(.init(participant: agent, reason: .ended))))
        #expect(snapshot.agent == nil)
    }

    @Test func storedEvents_giveTheSameSnapshotAsApplyingEach_upToTheFirstGap() {
        let summary = FileStorageTests.conversation(id)
        let events = [
            event(1, visitor, .stateChanged(.init(from: nil, to: .queued, reason: .opened))),
            event(2, .system, .stateChanged(.init(from: .queued, to: .assigned, reason: .assigned, agentID: AgentID(rawValue: agent.id!)))),
            event(3, agent, .participantJoined(.init(participant: agent))),
            event(4, agent, .message(.init(clientMessageID: "a", text: "Hi"))),
        ]
        var applied = ConversationSnapshot(id: id, summary: summary)
        for event in events { applied.apply(event) }
        let adopted = ConversationSnapshot(id: id, summary: summary, events: events)
        #expect(adopted == applied)
        #expect(adopted.state == .assigned && adopted.agent == agent && adopted.unreadCount == 1 && adopted.summary?.lastSeq == 4)

        // Seq 3 missing: only 1…2 are kept; the resume fetches the rest.
        let withGap = ConversationSnapshot(id: id, summary: summary, events: events.filter { $0.seq != 3 })
        #expect(withGap.events.map(\.seq) == [1, 2])
        #expect(withGap.lastSeq == 2)
    }

    @Test func messages_showPendingOutboxItemsAfterStoredOnes() {
        var snapshot = ConversationSnapshot(id: id)
        snapshot.apply(event(1, visitor, .message(.init(clientMessageID: "sent", text: "one"))))
        let pending = [
            OutboxItem(clientMessageID: "sent", conversationID: id, text: "one", createdAt: Date()),
            OutboxItem(clientMessageID: "waiting", conversationID: id, text: "two", createdAt: Date()),
            OutboxItem(clientMessageID: "refused", conversationID: id, text: "three", createdAt: Date(), failure: "too long"),
        ]
        let messages = snapshot.messages(pending: pending, visitor: VisitorID(rawValue: visitor.id!))
        #expect(messages.map(\.id) == ["sent", "waiting", "refused"])
        #expect(messages.map(\.deliveryState) == [.sent, .pending, .failed("too long")])
    }
}
