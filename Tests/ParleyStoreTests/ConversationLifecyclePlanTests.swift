import Foundation
import ParleyCore
import ParleyStore
import Testing

/// The pure rules of ``ConversationLifecycle/plan(_:current:currentRank:previousRead:)``, without a store.
@Suite("ConversationLifecycle.plan")
struct ConversationLifecyclePlanTests {
    // MARK: A conversation in each state

    static let app = AppID.generate()
    static let queue = QueueID.generate()
    static let visitorID = VisitorID.generate()
    static let otherVisitorID = VisitorID.generate()
    static let agentID = AgentID.generate()
    static let otherAgentID = AgentID.generate()
    static let conversationID = ConversationID.generate()
    static let opened = Date(timeIntervalSince1970: 1_800_000_000)
    static let now = Date(timeIntervalSince1970: 1_800_000_100)
    /// The rank a queued conversation has before the change.
    static let storedRank: Int64 = 100
    static let reopenRank: Int64 = 7
    static let requeueRank: Int64 = 3

    static let visitor = Participant.visitor(visitorID, name: "Vera")
    static let otherVisitor = Participant.visitor(otherVisitorID, name: "Otto")
    static let agent = Participant.agent(agentID, name: "Ada")
    static let otherAgent = Participant.agent(otherAgentID, name: "Bob")

    /// The conversation as stored in `state`, with five events; assigned and ended ones name `agentID`.
    static func conversation(_ state: ConversationState) -> Conversation {
        Conversation(
            id: conversationID, appID: app, queueID: queue, visitorID: visitorID, subject: "Help", attributes: ["k": "v"],
            state: state, agentID: state == .queued ? nil : agentID, lastSeq: 5,
            createdAt: opened, updatedAt: opened, queuedAt: state == .queued ? opened : nil)
    }

    static func rank(_ state: ConversationState) -> Int64? { state == .queued ? storedRank : nil }

    // MARK: Changes by who makes them

    enum Action: String, Sendable, CaseIterable {
        case visitorPosts, otherVisitorPosts, agentPosts, otherAgentPosts, systemPosts
        case assign, requeue, otherAgentRequeues
        case visitorEnds, otherVisitorEnds, agentEnds, otherAgentEnds, systemEnds

        var change: ConversationChange {
            let id = ConversationLifecyclePlanTests.conversationID, app = ConversationLifecyclePlanTests.app
            let now = ConversationLifecyclePlanTests.now, rank = ConversationLifecyclePlanTests.reopenRank
            func post(_ author: Participant) -> ConversationChange {
                .postMessage(.init(conversationID: id, appID: app, author: author, clientMessageID: "c1", text: "hi", reopenRank: rank, at: now))
            }
            func end(_ by: Participant) -> ConversationChange { .end(.init(conversationID: id, appID: app, by: by, at: now)) }
            func requeue(_ agent: Participant) -> ConversationChange {
                .requeue(.init(conversationID: id, appID: app, agent: agent, queueRank: ConversationLifecyclePlanTests.requeueRank, at: now))
            }
            return switch self {
            case .visitorPosts: post(ConversationLifecyclePlanTests.visitor)
            case .otherVisitorPosts: post(ConversationLifecyclePlanTests.otherVisitor)
            case .agentPosts: post(ConversationLifecyclePlanTests.agent)
            case .otherAgentPosts: post(ConversationLifecyclePlanTests.otherAgent)
            case .systemPosts: post(.system)
            case .assign: .assign(.init(conversationID: id, appID: app, agent: ConversationLifecyclePlanTests.agent, at: now))
            case .requeue: requeue(ConversationLifecyclePlanTests.agent)
            case .otherAgentRequeues: requeue(ConversationLifecyclePlanTests.otherAgent)
            case .visitorEnds: end(ConversationLifecyclePlanTests.visitor)
            case .otherVisitorEnds: end(ConversationLifecyclePlanTests.otherVisitor)
            case .agentEnds: end(ConversationLifecyclePlanTests.agent)
            case .otherAgentEnds: end(ConversationLifecyclePlanTests.otherAgent)
            case .systemEnds: end(.system)
            }
        }
    }

    /// What a plan should be: the events (`"<author role> <body brief>"`) and the conversation afterwards, or an error.
    enum Outcome: Sendable, CustomStringConvertible {
        case plans([String], state: ConversationState, agent: AgentID?, rank: Int64?)
        case fails(StoreErrorKind)

        var description: String {
            switch self {
            case .plans(let events, let state, _, _): "\(state) \(events)"
            case .fails(let kind): "throws \(kind)"
            }
        }
    }

    struct Transition: Sendable, CustomTestStringConvertible {
        let state: ConversationState
        let action: Action
        let outcome: Outcome
        var testDescription: String { "\(state) + \(action.rawValue) → \(outcome)" }
    }

    static let a = agentID.rawValue

    /// Every action in every state, and what it must do.
    static let transitions: [Transition] = [
        // Queued: the visitor writes and may cancel; only assign moves it on.
        .init(state: .queued, action: .visitorPosts, outcome: .plans(["visitor message c1 hi"], state: .queued, agent: nil, rank: storedRank)),
        .init(state: .queued, action: .systemPosts, outcome: .plans(["system message c1 hi"], state: .queued, agent: nil, rank: storedRank)),
        .init(state: .queued, action: .otherVisitorPosts, outcome: .fails(.notFound)),
        .init(state: .queued, action: .agentPosts, outcome: .fails(.invalidState)),
        .init(state: .queued, action: .assign, outcome: .plans([
            "system state_changed queued->assigned assigned \(a)",
            "agent participant_joined agent \(a)",
        ], state: .assigned, agent: agentID, rank: nil)),
        .init(state: .queued, action: .requeue, outcome: .fails(.invalidState)),
        .init(state: .queued, action: .visitorEnds, outcome: .plans(["visitor state_changed queued->ended cancelled"], state: .ended, agent: nil, rank: nil)),
        .init(state: .queued, action: .otherVisitorEnds, outcome: .fails(.notFound)),
        .init(state: .queued, action: .agentEnds, outcome: .fails(.invalidState)),
        .init(state: .queued, action: .systemEnds, outcome: .fails(.invalidState)),

        // Assigned: the visitor and the assigned agent write; that agent ends or is requeued.
        .init(state: .assigned, action: .visitorPosts, outcome: .plans(["visitor message c1 hi"], state: .assigned, agent: agentID, rank: nil)),
        .init(state: .assigned, action: .agentPosts, outcome: .plans(["agent message c1 hi"], state: .assigned, agent: agentID, rank: nil)),
        .init(state: .assigned, action: .otherAgentPosts, outcome: .fails(.invalidState)),
        .init(state: .assigned, action: .otherVisitorPosts, outcome: .fails(.notFound)),
        .init(state: .assigned, action: .assign, outcome: .fails(.invalidState)),
        .init(state: .assigned, action: .requeue, outcome: .plans([
            "agent participant_left agent \(a) offline",
            "system state_changed assigned->queued requeued",
        ], state: .queued, agent: nil, rank: requeueRank)),
        .init(state: .assigned, action: .otherAgentRequeues, outcome: .fails(.invalidState)),
        .init(state: .assigned, action: .agentEnds, outcome: .plans([
            "agent state_changed assigned->ended ended_by_agent",
            "agent participant_left agent \(a) ended",
        ], state: .ended, agent: agentID, rank: nil)),
        .init(state: .assigned, action: .visitorEnds, outcome: .plans([
            "visitor state_changed assigned->ended ended_by_visitor",
            "agent participant_left agent \(a) ended",
        ], state: .ended, agent: agentID, rank: nil)),
        .init(state: .assigned, action: .otherAgentEnds, outcome: .fails(.invalidState)),
        .init(state: .assigned, action: .otherVisitorEnds, outcome: .fails(.notFound)),
        .init(state: .assigned, action: .systemEnds, outcome: .fails(.invalidState)),

        // Ended: a visitor's message reopens it; ending again does nothing; agents cannot write.
        .init(state: .ended, action: .visitorPosts, outcome: .plans([
            "visitor state_changed ended->queued reopened",
            "visitor message c1 hi",
        ], state: .queued, agent: nil, rank: reopenRank)),
        .init(state: .ended, action: .otherVisitorPosts, outcome: .fails(.notFound)),
        .init(state: .ended, action: .agentPosts, outcome: .fails(.invalidState)),
        .init(state: .ended, action: .assign, outcome: .fails(.invalidState)),
        .init(state: .ended, action: .requeue, outcome: .fails(.invalidState)),
        .init(state: .ended, action: .visitorEnds, outcome: .plans([], state: .ended, agent: agentID, rank: nil)),
        .init(state: .ended, action: .agentEnds, outcome: .plans([], state: .ended, agent: agentID, rank: nil)),
        .init(state: .ended, action: .otherAgentEnds, outcome: .plans([], state: .ended, agent: agentID, rank: nil)),
    ]

    @Test(arguments: transitions)
    func plan_transition_matchesRules(_ transition: Transition) {
        let current = Self.conversation(transition.state)
        switch transition.outcome {
        case .fails(let kind):
            expectPlanError(kind) {
                try ConversationLifecycle.plan(transition.action.change, current: current, currentRank: Self.rank(transition.state))
            }
        case .plans(let events, let state, let agent, let rank):
            do {
                let plan = try ConversationLifecycle.plan(transition.action.change, current: current, currentRank: Self.rank(transition.state))
                #expect(plan.events.map { "\($0.author.role.rawValue) \($0.body.brief)" } == events)
                #expect(plan.conversation.state == state)
                #expect(plan.conversation.agentID == agent)
                #expect(plan.queueRank == rank)
                #expect(plan.conversation.lastSeq == current.lastSeq, "the store, not the plan, numbers events")
                #expect(plan.conversation.id == current.id)
                #expect(plan.conversation.visitorID == current.visitorID)
                #expect(plan.conversation.queueID == current.queueID)
                #expect((plan.conversation.queuedAt != nil) == (state == .queued), "queuedAt is set exactly while queued")
            } catch {
                Issue.record("expected a plan, got \(error)")
            }
        }
    }

    /// Every action is covered in every state where the table claims it (a guard against a table
    /// that silently shrinks).
    @Test func transitions_tableCoversEveryStateAndAction() {
        for state in ConversationState.allCases {
            let covered = Set(Self.transitions.filter { $0.state == state }.map(\.action))
            #expect(covered.count >= 8, "state \(state) has only \(covered.count) rows")
        }
        let keys = Self.transitions.map { "\($0.state)/\($0.action)" }
        #expect(Set(keys).count == keys.count, "no duplicate rows")
    }

    // MARK: Open

    static func openChange(rank: Int64 = 42) -> ConversationChange {
        .open(.init(id: conversationID, appID: app, queueID: queue, visitorID: visitorID, visitorName: "Vera", subject: "Refund",
                    attributes: ["plan": "pro"], queueRank: rank, at: now))
    }

    @Test func open_new_plansQueuedWithOpenedEventByVisitor() throws {
        let plan = try ConversationLifecycle.plan(Self.openChange(), current: nil, currentRank: nil)
        #expect(plan.events.count == 1)
        #expect(plan.events.first?.author == Self.visitor)
        #expect(plan.events.first?.body == .stateChanged(StateChange(from: nil, to: .queued, reason: .opened)))
        #expect(plan.conversation == Conversation(
            id: Self.conversationID, appID: Self.app, queueID: Self.queue, visitorID: Self.visitorID, subject: "Refund",
            attributes: ["plan": "pro"], state: .queued, agentID: nil, lastSeq: 0,
            createdAt: Self.now, updatedAt: Self.now, queuedAt: Self.now))
        #expect(plan.queueRank == 42)
    }

    @Test(arguments: ConversationState.allCases)
    func open_existing_throwsDuplicate(_ state: ConversationState) {
        expectPlanError(.duplicate) {
            try ConversationLifecycle.plan(Self.openChange(), current: Self.conversation(state), currentRank: Self.rank(state))
        }
    }

    @Test(arguments: [Action.visitorPosts, .agentPosts, .assign, .requeue, .visitorEnds, .agentEnds])
    func change_withoutConversation_throwsNotFound(_ action: Action) {
        expectPlanError(.notFound) { try ConversationLifecycle.plan(action.change, current: nil, currentRank: nil) }
    }

    // MARK: Fields a transition sets

    @Test func reopen_clearsAgentAndRestartsWaitAtMessageTime() throws {
        let plan = try ConversationLifecycle.plan(Action.visitorPosts.change, current: Self.conversation(.ended), currentRank: nil)
        #expect(plan.conversation.agentID == nil)
        #expect(plan.conversation.queuedAt == Self.now)
        #expect(plan.queueRank == Self.reopenRank)
    }

    @Test func requeue_restartsWaitAtRequeueTime() throws {
        let plan = try ConversationLifecycle.plan(Action.requeue.change, current: Self.conversation(.assigned), currentRank: nil)
        #expect(plan.conversation.queuedAt == Self.now)
        #expect(plan.queueRank == Self.requeueRank)
    }

    @Test func assign_recordsAgentInStateChange() throws {
        let plan = try ConversationLifecycle.plan(Action.assign.change, current: Self.conversation(.queued), currentRank: Self.storedRank)
        guard case .stateChanged(let change) = plan.events.first?.body else {
            Issue.record("first event is not a state change: \(plan.events)")
            return
        }
        #expect(change.agentID == Self.agentID)
        #expect(plan.events.last?.body == .participantJoined(ParticipantJoined(participant: Self.agent)))
        #expect(plan.conversation.queuedAt == nil)
    }

    /// Regression (found by this suite, fixed in f11a8dd): the `case (_, .ended)` no-op was matched
    /// before the visitor check, so a visitor who does not own an ended conversation got a plan (and
    /// the store handed back the conversation) instead of `notFound`.
    @Test(.bug(id: "store-end-ended-visitor-check", "Regression: ending an ended conversation skipped the visitor check"))
    func end_byOtherVisitorWhenEnded_throwsNotFound() {
        expectPlanError(.notFound) {
            try ConversationLifecycle.plan(Action.otherVisitorEnds.change, current: Self.conversation(.ended), currentRank: nil)
        }
    }

    // MARK: Read markers

    struct ReadCase: Sendable, CustomTestStringConvertible {
        let previousRead: Int64?
        let seq: Int64
        /// The read seq stored, nil for a no-op, or the error.
        let outcome: Result<Int64?, StoreErrorBox>
        var testDescription: String {
            let result = switch outcome {
            case .success(let stored?): "stores read \(stored)"
            case .success(nil): "no-op"
            case .failure(let box): "throws \(box.kind.rawValue)"
            }
            return "previous read \(previousRead.map(String.init) ?? "none"), read up to \(seq) of 5 → \(result)"
        }
    }

    struct StoreErrorBox: Error, Sendable { let kind: StoreErrorKind }

    enum Reader: String, Sendable, CaseIterable {
        case visitor, agent
        var participant: Participant {
            switch self {
            case .visitor: ConversationLifecyclePlanTests.visitor
            case .agent: ConversationLifecyclePlanTests.agent
            }
        }
    }

    /// The conversation has lastSeq 5.
    static let readCases: [ReadCase] = [
        .init(previousRead: nil, seq: 1, outcome: .success(1)),
        .init(previousRead: nil, seq: 5, outcome: .success(5)),
        .init(previousRead: 3, seq: 4, outcome: .success(4)),
        .init(previousRead: 3, seq: 3, outcome: .success(nil)),
        .init(previousRead: 4, seq: 2, outcome: .success(nil)),
        .init(previousRead: nil, seq: 0, outcome: .failure(.init(kind: .invalidState))),
        .init(previousRead: nil, seq: -1, outcome: .failure(.init(kind: .invalidState))),
        .init(previousRead: nil, seq: 6, outcome: .failure(.init(kind: .invalidState))),
        .init(previousRead: 5, seq: 6, outcome: .failure(.init(kind: .invalidState))),
    ]

    @Test(arguments: readCases, Reader.allCases)
    func markRead_plan_followsPreviousReadAndBounds(_ read: ReadCase, by reader: Reader) {
        let reader = reader.participant
        let change = ConversationChange.markRead(.init(conversationID: Self.conversationID, appID: Self.app, by: reader, seq: read.seq, at: Self.now))
        let current = Self.conversation(.assigned)
        switch read.outcome {
        case .failure(let box):
            expectPlanError(box.kind) {
                try ConversationLifecycle.plan(change, current: current, currentRank: nil, previousRead: read.previousRead)
            }
        case .success(let stored):
            do {
                let plan = try ConversationLifecycle.plan(change, current: current, currentRank: nil, previousRead: read.previousRead)
                if let stored {
                    #expect(plan.events.map(\.author) == [reader])
                    #expect(plan.events.map(\.body) == [.read(ReadMarker(readSeq: stored))])
                } else {
                    #expect(plan.events.isEmpty, "a read at or below the previous read is a no-op")
                }
                #expect(plan.conversation == current, "a read changes no conversation field")
            } catch {
                Issue.record("expected a plan, got \(error)")
            }
        }
    }

    @Test func markRead_byOtherVisitor_throwsNotFound() {
        let change = ConversationChange.markRead(.init(conversationID: Self.conversationID, appID: Self.app, by: Self.otherVisitor, seq: 1, at: Self.now))
        expectPlanError(.notFound) { try ConversationLifecycle.plan(change, current: Self.conversation(.assigned), currentRank: nil) }
    }
}
