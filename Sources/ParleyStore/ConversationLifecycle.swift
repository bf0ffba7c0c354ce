import Foundation
import ParleyCore

/// The rules of a conversation's life, as a pure function every store applies inside its transaction.
///
/// ```
///            open                  assign
///   (none) ───────▶ queued ───────────────▶ assigned ──┐ transfer to an agent
///                    │  ▲ ◀─── requeue ───────┘ │  ▲   │
///          cancel    │  │ ◀── transfer to a queue │  └───┘
///                    │  │ visitor writes        │ end (visitor or agent)
///                    ▼  │                       ▼
///                   ended ◀─────────────────────┘
/// ```
public enum ConversationLifecycle {
    /// What a change does: the conversation's new fields and the events to store, in order.
    /// The store numbers the events and sets `lastSeq` and `updatedAt`.
    public struct Plan: Sendable {
        public var conversation: Conversation
        /// The rank to persist while queued (smaller waits less); nil when not queued.
        public var queueRank: Int64?
        public var events: [(author: Participant, body: EventBody)]
    }

    /// What a store writes for a plan: the conversation with its new `lastSeq` and times, and the
    /// events numbered after the stored `lastSeq`. Times are rounded to the millisecond stores keep,
    /// so the commit's answer equals what later reads return.
    public static func stamp(_ plan: Plan, current: Conversation?, at date: Date) -> (conversation: Conversation, events: [ConversationEvent]) {
        let at = Timestamp.date(millis: Timestamp.millis(date))
        var conversation = plan.conversation
        if current == nil { conversation.createdAt = at }
        if conversation.queuedAt != nil, conversation.queuedAt != current?.queuedAt { conversation.queuedAt = at }
        var events: [ConversationEvent] = []
        for (author, body) in plan.events {
            conversation.lastSeq += 1
            events.append(ConversationEvent(conversationID: conversation.id, seq: conversation.lastSeq, createdAt: at, author: author, body: body))
        }
        conversation.updatedAt = at
        return (conversation, events)
    }

    /// True when `updated` differs from `current` in nothing but `lastSeq` and `updatedAt`, and the
    /// queue rank stays: a message in a conversation whose state does not move. Stores then write
    /// those two columns instead of the whole row (which re-encodes the attributes).
    public static func onlyActivityChanged(
        _ updated: Conversation, rank: Int64?, from current: Conversation?, currentRank: Int64?
    ) -> Bool {
        guard var unchanged = current, rank == currentRank else { return false }
        unchanged.lastSeq = updated.lastSeq
        unchanged.updatedAt = updated.updatedAt
        return unchanged == updated
    }

    /// How long a conversation waited, when this change assigns it after waiting: the stores keep
    /// these as samples for the estimated wait (``WaitEstimator``).
    public static func waitSample(from current: Conversation?, to updated: Conversation) -> WaitEstimator.Sample? {
        guard let current, current.state == .queued, updated.state == .assigned, let queuedAt = current.queuedAt else { return nil }
        return WaitEstimator.Sample(queuedAt: queuedAt, assignedAt: updated.updatedAt)
    }

    /// Refuses a visitor acting on a conversation that is not theirs, as "not found". Stores call it
    /// before anything else (the idempotency lookup included), so nothing about the conversation leaks.
    public static func authorize(_ change: ConversationChange, on conversation: Conversation) throws(StoreError) {
        let actor: Participant? = switch change {
        case .postMessage(let post): post.author
        case .end(let end): end.by
        case .markRead(let read): read.by
        case .pushPage(let push): push.agent
        case .callback(let update): update.by
        case .open, .assign, .requeue, .transfer: nil
        }
        if let actor, actor.role == .visitor, actor.id != conversation.visitorID.rawValue {
            throw .notFound("conversation not found")
        }
    }

    /// Plans a change against the conversation as stored (nil when it does not exist yet).
    ///
    /// - Parameters:
    ///   - current: the stored conversation, already checked to belong to the change's app.
    ///   - currentRank: the stored queue rank.
    ///   - previousRead: the reader's earlier read seq, for ``ConversationChange/markRead(_:)``.
    ///   - assignedAgentName: the display name of the assigned agent, for the notice when the visitor ends.
    /// - Throws: ``StoreError`` when the change does not fit the state.
    public static func plan(
        _ change: ConversationChange, current: Conversation?, currentRank: Int64?, previousRead: Int64? = nil,
        assignedAgentName: String? = nil
    ) throws(StoreError) -> Plan {
        if case .open(let open) = change {
            guard current == nil else { throw .duplicate("conversation \(open.id) exists") }
            let conversation = Conversation(
                id: open.id, appID: open.appID, queueID: open.queueID,
                visitorID: open.visitorID, subject: open.subject,
                attributes: open.attributes, state: .queued, agentID: nil, lastSeq: 0,
                createdAt: open.at, updatedAt: open.at, queuedAt: open.at, callback: open.callback)
            var events: [(author: Participant, body: EventBody)] = [
                (open.visitor, .stateChanged(StateChange(from: nil, to: .queued, reason: .opened)))
            ]
            if let callback = open.callback {
                events.append((open.visitor, .callback(CallbackChange(action: .requested, callback: callback))))
            }
            return Plan(conversation: conversation, queueRank: open.queueRank, events: events)
        }
        guard var conversation = current else { throw .notFound("conversation not found") }
        try authorize(change, on: conversation)
        var rank = currentRank
        var events: [(author: Participant, body: EventBody)] = []
        let assignedAgent = conversation.agentID.map { Participant.agent($0, name: assignedAgentName) }

        switch change {
        case .open:
            preconditionFailure("handled above")

        case .postMessage(let post):
            switch post.author.role {
            case .visitor:
                guard post.author.id == conversation.visitorID.rawValue else { throw .notFound("conversation not found") }
                if conversation.state == .ended {
                    events.append((post.author, .stateChanged(StateChange(from: .ended, to: .queued, reason: .reopened))))
                    conversation.state = .queued
                    conversation.agentID = nil
                    conversation.queuedAt = post.at
                    rank = post.reopenRank
                }
            case .agent:
                guard conversation.state == .assigned, conversation.agentID?.rawValue == post.author.id else {
                    throw .invalidState("only the assigned agent can write into this conversation")
                }
            case .system:
                break
            }
            events.append((post.author, .message(MessageBody(clientMessageID: post.clientMessageID, text: post.text, attachment: post.attachment))))

        case .assign(let assign):
            guard conversation.state == .queued else {
                throw .invalidState("only a queued conversation can be assigned; this one is \(conversation.state.rawValue)")
            }
            guard let agentID = assign.agent.id.map(AgentID.init(rawValue:)) else { throw .invalidState("assign needs an agent") }
            // A callback request is offered to its visitor first; it keeps its rank meanwhile.
            if try offerCallback(assign, agent: agentID, conversation: &conversation, events: &events) { break }
            events.append((.system, .stateChanged(StateChange(from: .queued, to: .assigned, reason: .assigned, agentID: agentID))))
            events.append((assign.agent, .participantJoined(ParticipantJoined(participant: assign.agent))))
            conversation.state = .assigned
            conversation.agentID = agentID
            conversation.queuedAt = nil
            rank = nil

        case .requeue(let requeue):
            guard conversation.state == .assigned, conversation.agentID?.rawValue == requeue.agent.id else {
                throw .invalidState("the conversation is no longer assigned to that agent")
            }
            events.append((requeue.agent, .participantLeft(ParticipantLeft(participant: requeue.agent, reason: .offline))))
            events.append((.system, .stateChanged(StateChange(from: .assigned, to: .queued, reason: .requeued))))
            conversation.state = .queued
            conversation.agentID = nil
            conversation.queuedAt = requeue.at
            rank = requeue.queueRank
            callbackBackInQueue(&conversation, by: .system, events: &events)

        case .end(let end):
            switch (end.by.role, conversation.state) {
            case (_, .ended):
                return Plan(conversation: conversation, queueRank: nil, events: [])
            case (.visitor, let state):
                guard end.by.id == conversation.visitorID.rawValue else { throw .notFound("conversation not found") }
                let reason: StateChange.Reason = state == .queued ? .cancelled : .endedByVisitor
                events.append((end.by, .stateChanged(StateChange(from: state, to: .ended, reason: reason))))
                // An agent a callback request was only offered to never joined, so does not leave.
                if state == .assigned, let agent = assignedAgent, conversation.callback?.status != .offered {
                    events.append((agent, .participantLeft(ParticipantLeft(participant: agent, reason: .ended))))
                }
            case (.agent, .assigned):
                guard conversation.agentID?.rawValue == end.by.id else {
                    throw .invalidState("only the assigned agent can end this conversation")
                }
                events.append((end.by, .stateChanged(StateChange(from: .assigned, to: .ended, reason: .endedByAgent))))
                if conversation.callback?.status != .offered {
                    events.append((end.by, .participantLeft(ParticipantLeft(participant: end.by, reason: .ended))))
                }
            case (.agent, _), (.system, _):
                throw .invalidState("only the assigned agent can end this conversation")
            }
            callbackEnded(&conversation, by: end.by, events: &events)
            conversation.state = .ended
            conversation.queuedAt = nil
            rank = nil

        case .transfer(let transfer):
            guard conversation.state == .assigned, let from = assignedAgent else {
                throw .invalidState("only an assigned conversation can be transferred; this one is \(conversation.state.rawValue)")
            }
            guard transfer.by.id == from.id || transfer.byAdmin else {
                throw .invalidState("only the assigned agent or an admin can transfer this conversation")
            }
            switch transfer.target {
            case .agent(let agent):
                guard let agentID = agent.id.map(AgentID.init(rawValue:)) else { throw .invalidInput("transfer needs an agent") }
                guard agentID != conversation.agentID else { throw .invalidState("the conversation is already assigned to that agent") }
                try callbackTransferred(&conversation, to: agentID)
                events.append((from, .participantLeft(ParticipantLeft(participant: from, reason: .transferred))))
                events.append((transfer.by, .stateChanged(StateChange(from: .assigned, to: .assigned, reason: .transferred, agentID: agentID))))
                events.append((agent, .participantJoined(ParticipantJoined(participant: agent))))
                conversation.agentID = agentID
            case .queue(let queueID, let queueRank):
                events.append((from, .participantLeft(ParticipantLeft(participant: from, reason: .transferred))))
                events.append((transfer.by, .stateChanged(StateChange(from: .assigned, to: .queued, reason: .transferred, queueID: queueID))))
                conversation.state = .queued
                conversation.agentID = nil
                conversation.queueID = queueID
                conversation.queuedAt = transfer.at
                rank = queueRank
                callbackBackInQueue(&conversation, by: transfer.by, events: &events)
            }

        case .markRead(let read):
            if read.by.role == .visitor, read.by.id != conversation.visitorID.rawValue {
                throw .notFound("conversation not found")
            }
            guard read.seq >= 1, read.seq <= conversation.lastSeq else {
                throw .invalidState("seq must be between 1 and the conversation's last seq (\(conversation.lastSeq))")
            }
            if let previousRead, previousRead >= read.seq {
                return Plan(conversation: conversation, queueRank: rank, events: [])
            }
            events.append((read.by, .read(ReadMarker(readSeq: read.seq))))

        case .pushPage(let push):
            guard push.agent.role == .agent, conversation.state == .assigned, conversation.agentID?.rawValue == push.agent.id else {
                throw .invalidState("only the assigned agent can push a page into this conversation")
            }
            events.append((push.agent, .pagePushed(push.page)))

        case .callback(let update):
            try planCallback(update, conversation: &conversation, events: &events, assignedAgent: assignedAgent)
            if conversation.state == .ended { rank = nil }
        }
        return Plan(conversation: conversation, queueRank: rank, events: events)
    }
}
