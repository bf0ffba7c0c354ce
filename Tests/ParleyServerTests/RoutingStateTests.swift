import Foundation
import ParleyCore
import ParleyTestSupport
@testable import ParleyServer
import Testing

/// The routing state machine alone: inputs in, actions out, time passed in by hand.
struct RoutingStateTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)
    let queue = QueueID.generate(at: Date(timeIntervalSince1970: 1))
    let otherQueue = QueueID.generate(at: Date(timeIntervalSince1970: 2))

    func agent(_ index: Int, capacity: Int = 2, queues: [QueueID]? = nil, availability: Availability = .online) -> RoutingState.AgentProfile {
        .init(id: AgentID(rawValue: "agt_0000000000000000000000000\(index)"), queueIDs: queues ?? [queue], capacity: capacity,
              availability: availability, isDisabled: false)
    }

    func conversation(_ index: Int) -> ConversationID { ConversationID(rawValue: "cnv_000000000000000000000000\(String(format: "%02d", index))") }
    func visitor(_ index: Int) -> VisitorID { VisitorID(rawValue: "vis_000000000000000000000000\(String(format: "%02d", index))") }

    /// A state with agents loaded and connected.
    func makeState(_ agents: [RoutingState.AgentProfile], grace: TimeInterval = 60) -> RoutingState {
        var state = RoutingState(graceDuration: grace)
        for profile in agents {
            _ = state.agentUpdated(profile, now: start)
            _ = state.agentConnected(profile.id, now: start)
        }
        return state
    }

    @Test func noAgent_conversationsWait_andEachIsToldItsPosition() {
        var state = RoutingState(graceDuration: 60)
        var actions: [RoutingState.Action] = []
        for index in 1...3 {
            actions += state.conversationQueued(conversation(index), queue: queue, visitor: visitor(index), rank: Int64(index), now: start)
        }
        #expect(actions == [
            .announcePosition(conversation(1), visitor: visitor(1), position: 1),
            .announcePosition(conversation(2), visitor: visitor(2), position: 2),
            .announcePosition(conversation(3), visitor: visitor(3), position: 3),
        ])
        #expect(state.position(of: conversation(3)) == 3)
        // Cancelling the first moves the others up, and only they are told.
        #expect(state.conversationEnded(conversation(1), now: start) == [
            .announcePosition(conversation(2), visitor: visitor(2), position: 1),
            .announcePosition(conversation(3), visitor: visitor(3), position: 2),
        ])
    }

    @Test func aVisitorChange_keepsThePlace_andTellsTheNewVisitor() {
        var state = RoutingState(graceDuration: 60)
        for index in 1...3 { _ = state.conversationQueued(conversation(index), queue: queue, visitor: visitor(index), rank: Int64(index), now: start) }
        // The visitor of conversation 3 signed in: their conversation now belongs to the user, visitor 9.
        state.visitorChanged(conversation(3), to: visitor(9))
        #expect(state.position(of: conversation(3)) == 3)
        #expect(state.conversationEnded(conversation(1), now: start) == [
            .announcePosition(conversation(2), visitor: visitor(2), position: 1),
            .announcePosition(conversation(3), visitor: visitor(9), position: 2),
        ])
    }

    @Test func agentComingOnline_takesTheOldestWaitingUpToCapacity() {
        var state = RoutingState(graceDuration: 60)
        for index in 1...3 {
            _ = state.conversationQueued(conversation(index), queue: queue, visitor: visitor(index), rank: Int64(index), now: start)
        }
        let profile = agent(1, capacity: 2)
        _ = state.agentUpdated(profile, now: start)
        let actions = state.agentConnected(profile.id, now: start)
        #expect(actions == [
            .assign(conversation(1), to: profile.id),
            .assign(conversation(2), to: profile.id),
            .announcePosition(conversation(3), visitor: visitor(3), position: 1),
        ])
        #expect(state.load(of: profile.id) == 2)
        // A freed slot takes the next one.
        #expect(state.conversationEnded(conversation(1), now: start) == [.assign(conversation(3), to: profile.id)])
    }

    @Test func leastLoadedFirst_thenLongestIdle_thenId() {
        var state = makeState([agent(1, capacity: 5), agent(2, capacity: 5)])
        let first = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        #expect(first == [.assign(conversation(1), to: agent(1).id)])  // equal load, never assigned: smaller id
        let second = state.conversationQueued(conversation(2), queue: queue, visitor: visitor(2), rank: 2, now: start.addingTimeInterval(1))
        #expect(second == [.assign(conversation(2), to: agent(2).id)])  // least loaded
        let third = state.conversationQueued(conversation(3), queue: queue, visitor: visitor(3), rank: 3, now: start.addingTimeInterval(2))
        #expect(third == [.assign(conversation(3), to: agent(1).id)])  // equal load: agent 1 idle longer
    }

    @Test func awayOfflineDisabledOrOtherQueue_getNothing() {
        var state = makeState([
            agent(1, availability: .away), agent(2, availability: .offline), agent(3, queues: [otherQueue]),
            .init(id: agent(4).id, queueIDs: [queue], capacity: 2, availability: .online, isDisabled: true),
            agent(5, capacity: 0),
        ])
        let actions = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        #expect(actions == [.announcePosition(conversation(1), visitor: visitor(1), position: 1)])
    }

    @Test func onlineButNotConnected_getsNothing_untilItConnects() {
        var state = RoutingState(graceDuration: 60)
        _ = state.agentUpdated(agent(1), now: start)
        #expect(state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
            == [.announcePosition(conversation(1), visitor: visitor(1), position: 1)])
        #expect(state.agentConnected(agent(1).id, now: start) == [.assign(conversation(1), to: agent(1).id)])
    }

    @Test func disconnectPastGrace_requeuesAtTheHeadInTheirOrder() {
        var state = makeState([agent(1, capacity: 2)], grace: 30)
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 10, now: start)
        _ = state.conversationQueued(conversation(2), queue: queue, visitor: visitor(2), rank: 20, now: start)
        _ = state.conversationQueued(conversation(3), queue: queue, visitor: visitor(3), rank: 30, now: start)
        let leave = state.agentDisconnected(agent(1).id, now: start)
        #expect(leave == [.scheduleGrace(agent(1).id, deadline: start.addingTimeInterval(30))])
        // Too early: nothing happens.
        #expect(state.graceExpired(agent: agent(1).id, now: start.addingTimeInterval(10)).isEmpty)
        let expired = state.graceExpired(agent: agent(1).id, now: start.addingTimeInterval(30))
        let requeues = expired.compactMap { action -> ConversationID? in
            if case .requeue(let id, _, _) = action { return id }
            return nil
        }
        #expect(Set(requeues) == [conversation(1), conversation(2)])
        #expect(state.position(of: conversation(1)) == 1)
        #expect(state.position(of: conversation(2)) == 2)
        #expect(state.position(of: conversation(3)) == 3)
        #expect(state.load(of: agent(1).id) == 0)
    }

    @Test func reconnectWithinGrace_cancelsTheRequeue() {
        var state = makeState([agent(1)], grace: 30)
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        _ = state.agentDisconnected(agent(1).id, now: start)
        #expect(state.agentConnected(agent(1).id, now: start.addingTimeInterval(5)) == [.cancelGrace(agent(1).id)])
        #expect(state.graceExpired(agent: agent(1).id, now: start.addingTimeInterval(30)).isEmpty)
        #expect(state.owner(of: conversation(1)) == agent(1).id)
    }

    @Test func goingOfflineExplicitly_startsTheGraceToo() {
        var state = makeState([agent(1)], grace: 10)
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        var offline = agent(1)
        offline.availability = .offline
        #expect(state.agentUpdated(offline, now: start) == [.scheduleGrace(agent(1).id, deadline: start.addingTimeInterval(10))])
    }

    @Test func manualAccept_respectsCapacityAndWaitingState() {
        var state = makeState([agent(1, capacity: 1, availability: .away)])
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        _ = state.conversationQueued(conversation(2), queue: queue, visitor: visitor(2), rank: 2, now: start)
        // Conversation 1 keeps position 1, so nobody else needs telling.
        #expect(state.accept(conversation(2), by: agent(1).id, now: start) == [.assign(conversation(2), to: agent(1).id)])
        #expect(state.owner(of: conversation(2)) == agent(1).id)
        #expect(state.accept(conversation(1), by: agent(1).id, now: start) == nil)  // at capacity
        #expect(state.accept(conversation(9), by: agent(1).id, now: start) == nil)  // not waiting
    }

    // MARK: Several nodes (decision 0006)

    @Test func remotePresence_makesAnAgentConnectedElsewhereRoutable() {
        var state = RoutingState(graceDuration: 60)
        _ = state.agentUpdated(agent(1), now: start)
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        #expect(state.owner(of: conversation(1)) == nil)
        #expect(state.remotePresence([agent(1).id: 2], now: start) == [.assign(conversation(1), to: agent(1).id)])
        #expect(state.connections(of: agent(1).id) == 2)
        #expect(state.localConnections(of: agent(1).id) == 0)
        #expect(state.remotePresence([agent(1).id: 2], now: start) == [])  // nothing changed
    }

    @Test func remotePresenceGone_startsTheGrace_aLocalConnectionCancelsIt() {
        var state = RoutingState(graceDuration: 60)
        _ = state.agentUpdated(agent(1), now: start)
        _ = state.remotePresence([agent(1).id: 1], now: start)
        _ = state.conversationAssigned(conversation(1), to: agent(1).id, queue: queue, visitor: visitor(1), now: start)
        // The node that held the agent's socket died: its rows went stale.
        #expect(state.remotePresence([:], now: start) == [.scheduleGrace(agent(1).id, deadline: start.addingTimeInterval(60))])
        // The agent reconnects here before the deadline: nothing is requeued.
        _ = state.agentConnected(agent(1).id, now: start.addingTimeInterval(5))
        #expect(state.graceExpired(agent: agent(1).id, now: start.addingTimeInterval(61)) == [])
        #expect(state.owner(of: conversation(1)) == agent(1).id)
    }

    @Test func anotherNodesAssignment_replacesThisNodesReservation_andFreesTheSlot() {
        var state = makeState([agent(1, capacity: 1)])
        // Agent 2 serves another queue, connected to another node only.
        _ = state.agentUpdated(agent(2, queues: [otherQueue]), now: start)
        _ = state.remotePresence([agent(2).id: 1], now: start)
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        #expect(state.placement(of: conversation(1)) == .assigned(agent(1).id))
        _ = state.conversationQueued(conversation(2), queue: queue, visitor: visitor(2), rank: 2, now: start)
        #expect(state.placement(of: conversation(2)) == .queued(queue, rank: 2))
        // Another node's agent got conversation 1 first: agent 1's slot takes conversation 2.
        let actions = state.conversationAssigned(conversation(1), to: agent(2).id, queue: queue, visitor: visitor(1), now: start)
        #expect(actions == [.assign(conversation(2), to: agent(1).id)])
        #expect(state.owner(of: conversation(1)) == agent(2).id)
        #expect(state.load(of: agent(2).id) == 1)
        #expect(state.activeConversations == [conversation(1), conversation(2)])
    }

    @Test func tailRanks_growEvenWithinOneMillisecond() {
        var state = RoutingState(graceDuration: 60)
        let ranks = (0..<5).map { _ in state.tailRank(now: start) }
        #expect(ranks == ranks.sorted() && Set(ranks).count == 5)
    }

    // MARK: Transfers

    @Test func transferToAnAgent_movesTheLoad_andTheFreedSlotTakesTheNextWaiting() throws {
        // Agents 2 and 3 serve another queue, so only a transfer brings them this queue's conversations.
        var state = makeState([agent(1, capacity: 1), agent(2, capacity: 2, queues: [otherQueue]), agent(3, capacity: 0, queues: [otherQueue])])
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        _ = state.conversationQueued(conversation(2), queue: queue, visitor: visitor(2), rank: 2, now: start)
        #expect(state.owner(of: conversation(1)) == agent(1).id && state.position(of: conversation(2)) == 1)

        #expect(state.transfer(conversation(1), to: agent(3).id, now: start) == .failure(.atCapacity))
        #expect(state.transfer(conversation(1), to: agent(1).id, now: start) == .failure(.alreadyTheirs))
        #expect(state.transfer(conversation(2), to: agent(2).id, now: start) == .failure(.notAssigned))
        #expect(state.owner(of: conversation(1)) == agent(1).id, "a refusal changes nothing")

        // The transfer goes through, and agent 1's freed slot takes the waiting conversation 2.
        let actions = try state.transfer(conversation(1), to: agent(2).id, now: start).get()
        #expect(state.owner(of: conversation(1)) == agent(2).id)
        #expect(actions == [.assign(conversation(2), to: agent(1).id)])
        #expect(state.load(of: agent(1).id) == 1 && state.load(of: agent(2).id) == 1)
    }

    @Test func transferToAnAgent_whoIsOfflineOrDisconnected_isRefused() {
        var state = makeState([agent(1, capacity: 2), agent(2, capacity: 2, availability: .offline)])
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 1, now: start)
        #expect(state.owner(of: conversation(1)) == agent(1).id)
        #expect(state.transfer(conversation(1), to: agent(2).id, now: start) == .failure(.unavailable))
        _ = state.agentUpdated(agent(2, capacity: 2, availability: .away), now: start)
        _ = state.agentDisconnected(agent(2).id, now: start)
        #expect(state.transfer(conversation(1), to: agent(2).id, now: start) == .failure(.unavailable))
        // Away but connected: a transfer is a deliberate hand-over, so it is accepted.
        _ = state.agentConnected(agent(2).id, now: start)
        #expect((try? state.transfer(conversation(1), to: agent(2).id, now: start).get()) != nil)
        #expect(state.owner(of: conversation(1)) == agent(2).id)
    }

    @Test func headRank_isAheadOfEveryoneWaiting() {
        var state = RoutingState(graceDuration: 60)
        _ = state.conversationQueued(conversation(1), queue: queue, visitor: visitor(1), rank: 10, now: start)
        let head = state.headRank(of: queue, now: start)
        #expect(head < 10)
        _ = state.conversationQueued(conversation(2), queue: queue, visitor: visitor(2), rank: head, now: start)
        #expect(state.position(of: conversation(2)) == 1 && state.position(of: conversation(1)) == 2)
    }
}
