import Foundation
import ParleyCore
import ParleyStore
import Testing

/// How a callback request's steps move its conversation (``ConversationLifecycle``), without a store.
@Suite("ConversationLifecycle callbacks")
struct ConversationLifecycleCallbackTests {
    typealias T = ConversationLifecyclePlanTests
    static let rank: Int64 = 42
    static let a = T.agentID.rawValue

    /// A callback conversation as stored, with its request in `state`.
    static func stored(_ state: CallbackMachine.State) -> Conversation {
        var request = Callback(id: CallbackID(conversation: T.conversationID), kind: .callMe, phone: "+4930901820")
        request.state = state
        let conversationState: ConversationState = switch state {
        case .waiting, .scheduled: .queued
        case .offered, .connecting: .assigned
        case .ended: .ended
        }
        var conversation = T.conversation(conversationState)
        conversation.callback = request
        return conversation
    }

    static func step(_ step: ConversationChange.CallbackUpdate.Step, by: Participant, at: Date = T.now) -> ConversationChange {
        .callback(.init(conversationID: T.conversationID, appID: T.app, by: by, step: step, at: at))
    }

    static func plan(_ change: ConversationChange, on conversation: Conversation) throws -> ConversationLifecycle.Plan {
        try ConversationLifecycle.plan(change, current: conversation, currentRank: rank, assignedAgentName: "Ada")
    }

    static func briefs(_ plan: ConversationLifecycle.Plan) -> [String] {
        plan.events.map { "\($0.author.role.rawValue) \($0.body.brief)" }
    }

    @Test func anAgentReady_offersTheRequest_keepingItsRank_withoutJoining() throws {
        let plan = try Self.plan(.assign(.init(conversationID: T.conversationID, appID: T.app, agent: T.agent, at: T.now)), on: Self.stored(.waiting))
        #expect(Self.briefs(plan) == ["system state_changed queued->assigned assigned \(Self.a)", "system callback offered offered \(Self.a)"])
        #expect(plan.conversation.state == .assigned && plan.queueRank == Self.rank)
        #expect(plan.conversation.callback?.expiresAt == T.now.addingTimeInterval(60))
        // A scheduled request is not offered before its time.
        #expect(throws: StoreError.self) {
            try Self.plan(.assign(.init(conversationID: T.conversationID, appID: T.app, agent: T.agent, at: T.now)),
                          on: Self.stored(.scheduled(until: T.now.addingTimeInterval(60))))
        }
    }

    @Test func confirm_joinsTheAgent_snoozeAndExpiry_returnToTheQueueAtTheRank() throws {
        let offered = Self.stored(.offered(agent: T.agentID, expiresAt: T.now.addingTimeInterval(30)))
        let confirmed = try Self.plan(Self.step(.confirm, by: T.visitor), on: offered)
        #expect(Self.briefs(confirmed) == ["agent participant_joined agent \(Self.a)", "visitor callback confirmed connecting \(Self.a)"])
        #expect(confirmed.conversation.state == .assigned)

        let snoozed = try Self.plan(Self.step(.snooze, by: T.visitor), on: offered)
        #expect(Self.briefs(snoozed) == ["visitor state_changed assigned->queued requeued", "visitor callback snoozed scheduled"])
        #expect(snoozed.conversation.state == .queued && snoozed.conversation.agentID == nil && snoozed.queueRank == Self.rank)
        #expect(snoozed.conversation.callback?.scheduledUntil == T.now.addingTimeInterval(300))

        // An expiry before its time is a late timer: nothing to store.
        #expect(try Self.plan(Self.step(.expire, by: .system), on: offered).events.isEmpty)
        let expired = try Self.plan(Self.step(.expire, by: .system, at: T.now.addingTimeInterval(30)), on: offered)
        #expect(Self.briefs(expired) == ["system state_changed assigned->queued requeued", "system callback requeued waiting"])
        #expect(expired.queueRank == Self.rank)
    }

    @Test func whoMayDoWhat() throws {
        let offered = Self.stored(.offered(agent: T.agentID, expiresAt: T.now.addingTimeInterval(30)))
        // Another visitor: not found, as for any conversation of theirs.
        #expect(throws: StoreError.notFound("conversation not found")) { try Self.plan(Self.step(.confirm, by: T.otherVisitor), on: offered) }
        // Agents do not confirm; visitors do not expire or record outcomes.
        #expect(throws: StoreError.self) { try Self.plan(Self.step(.confirm, by: T.agent), on: offered) }
        #expect(throws: StoreError.self) { try Self.plan(Self.step(.expire, by: T.visitor), on: offered) }
        let connecting = Self.stored(.connecting(agent: T.agentID))
        #expect(throws: StoreError.self) { try Self.plan(Self.step(.outcome(.done, retryAt: nil), by: T.otherAgent), on: connecting) }
        #expect(throws: StoreError.self) { try Self.plan(Self.step(.outcome(.noAnswer, retryAt: T.now), by: T.agent), on: connecting) }
        // A chat is no callback request.
        #expect(throws: StoreError.self) { try Self.plan(Self.step(.cancel, by: T.visitor), on: T.conversation(.queued)) }
    }

    @Test func theEndOfTheConversation_endsItsRequest() throws {
        let offered = Self.stored(.offered(agent: T.agentID, expiresAt: T.now.addingTimeInterval(30)))
        // The agent it was offered to never joined, so does not leave.
        let byVisitor = try Self.plan(.end(.init(conversationID: T.conversationID, appID: T.app, by: T.visitor, at: T.now)), on: offered)
        #expect(Self.briefs(byVisitor) == ["visitor state_changed assigned->ended ended_by_visitor", "visitor callback cancelled ended"])
        let connecting = Self.stored(.connecting(agent: T.agentID))
        let byAgent = try Self.plan(.end(.init(conversationID: T.conversationID, appID: T.app, by: T.agent, at: T.now)), on: connecting)
        #expect(Self.briefs(byAgent) == [
            "agent state_changed assigned->ended ended_by_agent", "agent participant_left agent \(Self.a) ended", "agent callback completed ended",
        ])
        let done = try Self.plan(Self.step(.outcome(.done, retryAt: nil), by: T.agent), on: connecting)
        #expect(Self.briefs(done) == [
            "agent participant_left agent \(Self.a) ended", "agent state_changed assigned->ended ended_by_agent", "agent callback completed ended",
        ])
        #expect(done.queueRank == nil && done.conversation.callback?.outcome == .done)
    }
}
