import Foundation
import ParleyCore

/// What a store reads before deciding a change: the conversation's row (always, locked where the
/// store locks), and the few other facts ``ConversationLifecycle/reads(for:)`` asks for.
///
/// Stores fill it in their own dialect; ``ConversationLifecycle/decide(_:context:effects:)`` turns
/// it and the change into the rows to write. Nothing in it is derived: every field is a read.
public struct CommitContext: Sendable {
    /// The conversation as stored, when it exists in the change's app.
    public var current: Conversation?
    /// Its stored queue rank (nil unless queued).
    public var currentRank: Int64?
    /// The event already stored under the change's client message id, and its stored JSON.
    public var storedMessage: (event: ConversationEvent, json: String)?
    /// The queues asked for (``CommitReads/queues``) that exist in the change's app.
    public var queuesFound: Set<QueueID>
    /// True when the visitor asked for (``CommitReads/visitor``) exists in the change's app.
    public var visitorFound: Bool
    /// The capacity and current load of the agent asked for (``CommitReads/agentLoad``), or nil
    /// when no such agent exists in the change's app.
    public var agentLoad: AgentLoad?
    /// The reader's stored read seq (``CommitReads/readMarker``), when there is one.
    public var previousRead: Int64?
    /// The assigned agent's display name (``CommitReads/assignedAgentName``).
    public var assignedAgentName: String?

    public init(
        current: Conversation?, currentRank: Int64?, storedMessage: (event: ConversationEvent, json: String)? = nil,
        queuesFound: Set<QueueID> = [], visitorFound: Bool = false, agentLoad: AgentLoad? = nil, previousRead: Int64? = nil,
        assignedAgentName: String? = nil
    ) {
        self.current = current
        self.currentRank = currentRank
        self.storedMessage = storedMessage
        self.queuesFound = queuesFound
        self.visitorFound = visitorFound
        self.agentLoad = agentLoad
        self.previousRead = previousRead
        self.assignedAgentName = assignedAgentName
    }
}

/// An agent's capacity and the conversations assigned to them now.
public struct AgentLoad: Sendable, Hashable {
    public var capacity: Int
    public var assigned: Int
    public init(capacity: Int, assigned: Int) {
        self.capacity = capacity
        self.assigned = assigned
    }
}

/// The reads a change needs besides the conversation's row (``ConversationLifecycle/reads(for:)``).
/// A plain message needs one: the idempotency lookup.
public struct CommitReads: Sendable, Hashable {
    /// Look up the event stored under this client message id.
    public var clientMessageID: String?
    /// Check that these queues belong to the app.
    public var queues: [QueueID] = []
    /// Check that this visitor belongs to the app.
    public var visitor: VisitorID?
    /// Read this agent's capacity and load (and, on PostgreSQL, lock the agent's row after the
    /// conversation's, always in that order, decision 0006).
    public var agentLoad: AgentID?
    /// Read this participant's read marker.
    public var readMarker: Participant?
    /// Read the assigned agent's name (for the notice an end or a transfer carries).
    public var assignedAgentName = false

    public init() {}
}

/// One row a store writes for a decided change. The list of writes is the whole of a commit: a
/// store runs them in order, in one transaction, and adds nothing of its own.
public enum StoreWrite: Sendable {
    /// A new conversation row.
    case insertConversation(Conversation, queueRank: Int64?)
    /// Every field of a conversation row (its state, agent, queue or rank moved).
    case updateConversation(Conversation, queueRank: Int64?)
    /// Only the activity of a conversation row: a message into a conversation that stays where it is.
    case touchConversation(ConversationID, lastSeq: Int64, updatedAt: Date)
    /// An event, with the JSON text to store (and to send as it is).
    case insertEvent(ConversationEvent, json: String)
    /// A participant's read position.
    case setReadMarker(ConversationID, reader: Participant, seq: Int64)
    /// How long a conversation waited before an agent took it (``WaitEstimator``).
    case recordWait(QueueID, WaitEstimator.Sample)
    /// The form answered when the conversation opened.
    case saveFormAnswers(ConversationID, FormSubmission)
    /// The row of a file sent with a message (its bytes are already stored).
    case insertAttachment(AttachmentRecord)
    /// A side effect that must happen because of the commit, kept in the outbox with it.
    case enqueue(OutboxEntry)
}

/// What ``ConversationLifecycle/decide(_:context:effects:)`` decided: what to write, and what the
/// commit answers.
public struct CommitDecision: Sendable {
    /// The rows to write, in order; empty when the change changes nothing (a duplicate, a no-op).
    public var writes: [StoreWrite]
    /// The answer once the writes are durable.
    public var commit: ConversationCommit
}

extension ConversationLifecycle {
    /// The reads a store makes for `change`, besides the conversation's row.
    public static func reads(for change: ConversationChange) -> CommitReads {
        var reads = CommitReads()
        switch change {
        case .open(let open):
            reads.queues = [open.queueID]
            reads.visitor = open.visitorID
        case .postMessage(let post):
            reads.clientMessageID = post.clientMessageID
        case .pushPage(let push):
            reads.clientMessageID = push.page.clientMessageID
        case .assign(let assign):
            reads.agentLoad = assign.agent.id.map(AgentID.init(rawValue:))
        case .transfer(let transfer):
            reads.assignedAgentName = true
            switch transfer.target {
            case .agent(let agent): reads.agentLoad = agent.id.map(AgentID.init(rawValue:))
            case .queue(let queue, _): reads.queues = [queue]
            }
        case .end, .callback:
            reads.assignedAgentName = true
        case .markRead(let read):
            reads.readMarker = read.by
        case .requeue:
            break
        }
        return reads
    }

    /// Decides a change against what the store read: refuses it, answers a duplicate, or returns
    /// the rows to write and the commit they make. Pure: a table of contexts tests it without a store.
    ///
    /// - Parameter effects: the side effects the server keeps with its commits (outbox rows).
    /// - Throws: ``StoreError`` when the change is refused (not found, state, capacity, idempotency).
    public static func decide(
        _ change: ConversationChange, context: CommitContext, effects: any CommitEffects = NoCommitEffects()
    ) throws -> CommitDecision {
        let current = context.current
        // Before anything else (the idempotency lookup included), so nothing about the conversation leaks.
        if let current { try authorize(change, on: current) }

        if let current, let stored = context.storedMessage {
            try checkResend(change, of: stored.event)
            return CommitDecision(writes: [], commit: ConversationCommit(
                conversation: current, events: [stored.event], isDuplicate: true, encodedEvents: [stored.json], queueRank: context.currentRank))
        }
        try checkReferences(change, context: context)

        let plan = try plan(change, current: current, currentRank: context.currentRank, previousRead: context.previousRead,
                            assignedAgentName: context.assignedAgentName)
        guard !plan.events.isEmpty else {
            return CommitDecision(writes: [], commit: ConversationCommit(
                conversation: plan.conversation, events: [], queueRank: plan.queueRank))
        }
        let (conversation, events) = stamp(plan, current: current, at: change.at)

        var writes: [StoreWrite] = []
        writes.reserveCapacity(events.count + 2)
        if current == nil {
            writes.append(.insertConversation(conversation, queueRank: plan.queueRank))
        } else if onlyActivityChanged(conversation, rank: plan.queueRank, from: current, currentRank: context.currentRank) {
            writes.append(.touchConversation(conversation.id, lastSeq: conversation.lastSeq, updatedAt: conversation.updatedAt))
        } else {
            writes.append(.updateConversation(conversation, queueRank: plan.queueRank))
        }
        if case .open(let open) = change, let submission = open.formSubmission {
            writes.append(.saveFormAnswers(conversation.id, submission))
        }
        if case .postMessage(let post) = change, let file = post.attachment,
           let message = events.first(where: { $0.message?.attachment?.id == file.id }) {
            writes.append(.insertAttachment(AttachmentRecord(
                attachment: file, conversationID: conversation.id, appID: conversation.appID, seq: message.seq, createdAt: message.createdAt)))
        }
        if let wait = waitSample(from: current, to: conversation) {
            writes.append(.recordWait(conversation.queueID, wait))
        }
        var encodedEvents: [String] = []
        encodedEvents.reserveCapacity(events.count)
        for event in events {
            let json = try FrameText.messageEvent(event) ?? String(decoding: ParleyJSON.encode(event), as: UTF8.self)
            encodedEvents.append(json)
            writes.append(.insertEvent(event, json: json))
            if case .read(let marker) = event.body {
                writes.append(.setReadMarker(event.conversationID, reader: event.author, seq: marker.readSeq))
            }
        }
        let commit = ConversationCommit(
            conversation: conversation, events: events, encodedEvents: encodedEvents, queueRank: plan.queueRank,
            moved: current?.state != conversation.state || current?.agentID != conversation.agentID
                || current?.queueID != conversation.queueID || context.currentRank != plan.queueRank
                || current?.callback != conversation.callback)
        for entry in effects.entries(for: commit, change: change) { writes.append(.enqueue(entry)) }
        return CommitDecision(writes: writes, commit: commit)
    }

    /// A resend must be the same message (or pushed page) by the same author as the one stored
    /// under its client message id; anything else reusing the id is refused.
    private static func checkResend(_ change: ConversationChange, of event: ConversationEvent) throws(StoreError) {
        let same: Bool
        switch change {
        case .postMessage(let post):
            same = event.author.role == post.author.role && event.author.id == post.author.id && event.message?.text == post.text
                && event.message?.attachment?.sha256 == post.attachment?.sha256
        case .pushPage(let push):
            same = event.author.role == push.agent.role && event.author.id == push.agent.id && event.body == .pagePushed(push.page)
        default:
            same = false
        }
        guard same else {
            throw StoreError.idempotencyConflict("client_message_id \(event.clientMessageID ?? "") was used for another message")
        }
    }

    /// Everyone a change names must belong to the change's app; an agent taking a conversation
    /// must have room for it.
    private static func checkReferences(_ change: ConversationChange, context: CommitContext) throws(StoreError) {
        let reads = reads(for: change)
        for queue in reads.queues where !context.queuesFound.contains(queue) { throw .notFound("queue not found") }
        if reads.visitor != nil, !context.visitorFound { throw .notFound("visitor not found") }
        if reads.agentLoad != nil {
            guard let load = context.agentLoad else { throw .notFound("agent not found") }
            if load.assigned >= load.capacity {
                throw .atCapacity("the agent already handles \(load.assigned) of \(load.capacity) conversations")
            }
        }
    }
}
