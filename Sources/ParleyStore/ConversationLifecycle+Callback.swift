import Foundation
import ParleyCore

/// How a callback request's steps move its conversation (decision 0019). The request's own rules
/// are ``CallbackMachine``'s; this maps each of its states onto the conversation's:
///
/// | request                 | conversation                       |
/// |-------------------------|------------------------------------|
/// | waiting                 | queued (routed)                    |
/// | scheduled               | queued, held back by routing       |
/// | offered, connecting     | assigned to the agent              |
/// | ended                   | ended                              |
///
/// The conversation keeps its queue rank through the offer, so a snooze or an unconfirmed offer
/// puts the request back in its place. The agent joins when the visitor confirms.
extension ConversationLifecycle {
    typealias Events = [(author: Participant, body: EventBody)]

    /// A step of the request (``ConversationChange/CallbackUpdate``).
    static func planCallback(
        _ update: ConversationChange.CallbackUpdate, conversation: inout Conversation, events: inout Events,
        assignedAgent: Participant?
    ) throws(StoreError) {
        guard var request = conversation.callback else { throw .invalidState("this conversation is not a callback request") }
        // To the millisecond, as stored: the commit's answer equals what later reads return.
        let at = Timestamp.date(millis: Timestamp.millis(update.at))
        let input: CallbackMachine.Input
        switch (update.step, update.by.role) {
        case (.confirm, .visitor): input = .confirm(at: at)
        case (.snooze, .visitor): input = .snooze(for: TimeInterval(request.snoozeMinutes * 60), at: at)
        case (.cancel, .visitor): input = .cancel
        case (.expire, .system): input = .expire(policy: request.onExpiry, at: at)
        case (.due, .system): input = .due(at: at)
        case (.outcome(let outcome, let retryAt), .agent):
            guard let agent = update.by.id.map(AgentID.init(rawValue:)) else { throw .invalidState("an outcome needs an agent") }
            if let retryAt, retryAt <= update.at { throw .invalidInput("retry_at must be in the future") }
            input = .outcome(outcome, by: agent, retryAt: retryAt)
        default:
            throw .invalidState("a \(update.by.role.rawValue) cannot do that to a callback request")
        }
        let before = request.state
        let after: CallbackMachine.State
        do {
            after = try CallbackMachine.apply(input, to: before)
        } catch {
            throw .invalidState(error.description)
        }
        guard after != before else { return }  // a late timer: nothing to store
        request.state = after
        if case .outcome(let outcome, _) = update.step { request.outcome = outcome }

        let action: CallbackChange.Action
        switch (before, after) {
        case (.offered(let agent, _), .connecting):
            let joined = Participant.agent(agent, name: assignedAgent?.name)
            events.append((joined, .participantJoined(ParticipantJoined(participant: joined))))
            action = .confirmed
        case (.scheduled, .waiting):
            action = .due
        case (.offered, .scheduled):
            requeue(&conversation, at: update.at, by: update.by, events: &events)
            action = .snoozed
        case (.offered, .waiting):
            requeue(&conversation, at: update.at, by: update.by, events: &events)
            action = .requeued
        case (.connecting, .scheduled):
            leave(conversation, agent: assignedAgent, events: &events)
            requeue(&conversation, at: update.at, by: update.by, events: &events)
            action = .rescheduled
        case (_, .ended(let reason)):
            if case .connecting = before { leave(conversation, agent: assignedAgent, events: &events) }
            let stateReason: StateChange.Reason = switch reason {
            case .completed: .endedByAgent
            case .cancelled: .cancelled
            case .expired: .expired
            }
            events.append((update.by, .stateChanged(StateChange(from: conversation.state, to: .ended, reason: stateReason))))
            conversation.state = .ended
            conversation.queuedAt = nil
            action = switch reason {
            case .completed: .completed
            case .cancelled: .cancelled
            case .expired: .expired
            }
        default:
            throw .invalidState("a callback request cannot go from \(before.name) to \(after.name)")
        }
        conversation.callback = request
        events.append((update.by, .callback(CallbackChange(action: action, callback: request))))
    }

    /// An agent is ready for a waiting request: it is offered to the visitor, holding the agent's
    /// slot and keeping its rank. Returns false for a conversation that is no callback request
    /// (or one whose request has ended: a reopened chat), which is assigned as usual.
    static func offerCallback(
        _ assign: ConversationChange.Assign, agent: AgentID, conversation: inout Conversation, events: inout Events
    ) throws(StoreError) -> Bool {
        guard var request = conversation.callback, request.isLive else { return false }
        guard request.status == .waiting else {
            throw .invalidState("the callback request is \(request.status.rawValue), not waiting")
        }
        do {
            request.state = try CallbackMachine.apply(
                .agentReady(agent, confirmWithin: TimeInterval(request.offerSeconds), at: Timestamp.date(millis: Timestamp.millis(assign.at))),
                to: request.state)
        } catch {
            throw .invalidState(error.description)
        }
        events.append((.system, .stateChanged(StateChange(from: .queued, to: .assigned, reason: .assigned, agentID: agent))))
        events.append((.system, .callback(CallbackChange(action: .offered, callback: request))))
        conversation.state = .assigned
        conversation.agentID = agent
        conversation.queuedAt = nil
        conversation.callback = request
        return true
    }

    /// The conversation went back to its queue (an agent's grace ran out, a transfer to a queue):
    /// its live request waits again.
    static func callbackBackInQueue(_ conversation: inout Conversation, by: Participant, events: inout Events) {
        guard var request = conversation.callback, request.isLive, request.status != .waiting else { return }
        request.state = .waiting
        conversation.callback = request
        events.append((by, .callback(CallbackChange(action: .requeued, callback: request))))
    }

    /// The conversation ended (by its visitor or its agent): its live request ends with it.
    static func callbackEnded(_ conversation: inout Conversation, by: Participant, events: inout Events) {
        guard var request = conversation.callback, request.isLive else { return }
        let connected = if case .connecting = request.state { true } else { false }
        let cancelled = by.role == .visitor || !connected
        request.state = .ended(cancelled ? .cancelled : .completed)
        conversation.callback = request
        events.append((by, .callback(CallbackChange(action: cancelled ? .cancelled : .completed, callback: request))))
    }

    /// The request went to another agent by a transfer: only once confirmed (an offer waits on the
    /// visitor's answer to the agent it named).
    static func callbackTransferred(_ conversation: inout Conversation, to agent: AgentID) throws(StoreError) {
        guard var request = conversation.callback, request.isLive else { return }
        guard case .connecting = request.state else {
            throw .invalidState("the callback request is offered to its agent; it can be transferred once the visitor confirms")
        }
        request.state = .connecting(agent: agent)
        conversation.callback = request
    }

    private static func leave(_ conversation: Conversation, agent: Participant?, events: inout Events) {
        guard let agent else { return }
        events.append((agent, .participantLeft(ParticipantLeft(participant: agent, reason: .ended))))
    }

    private static func requeue(_ conversation: inout Conversation, at: Date, by: Participant, events: inout Events) {
        events.append((by, .stateChanged(StateChange(from: conversation.state, to: .queued, reason: .requeued))))
        conversation.state = .queued
        conversation.agentID = nil
        conversation.queuedAt = at
    }
}
