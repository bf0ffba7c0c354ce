import Foundation
import Logging
import ParleyCore
import ParleyStore

/// The conversation operations, shared by the HTTP routes and the realtime socket: who may do what,
/// the durable commit, then telling the hub and routing. Nothing is told before it is stored.
struct ConversationService: Sendable {
    let store: any ParleyStore
    let hub: Hub
    let routing: RoutingEngine
    /// Every change goes through it: commit, publish, routing.
    let committer: ConversationCommitter
    let clock: any WallClock
    let nodes: NodeLink
    /// The app's forms (pre-chat, unavailable, post-chat), checked when a conversation opens.
    let settings: AppSettings
    /// Masks what visitors and agents write before it is stored (messages, notes, subjects,
    /// attributes, form answers, rating comments).
    let masking: MaskingService
    /// Messages per visitor (HTTP and realtime alike).
    let limits: RequestLimits
    let logger: Logger

    // MARK: Reading

    /// The conversation, when the caller may see it; 404 otherwise (never telling which).
    func visible(_ id: ConversationID, to caller: Caller) async throws -> Conversation {
        let conversation: Conversation?
        switch caller {
        case .visitor(let visitor):
            conversation = try await store.conversation(id, app: visitor.appID).flatMap { $0.visitorID == visitor.visitorID ? $0 : nil }
        case .agent(let agent):
            conversation = try await store.conversation(id, app: agent.appID)
        case .operator:
            conversation = nil
        }
        guard var conversation else { throw APIError.notFound("conversation not found") }
        if conversation.state == .queued { conversation.queuePosition = await routing.position(of: id) }
        return conversation
    }

    /// A visitor's own conversations, newest activity first (agents list through ``InboxService``).
    func list(for visitor: VisitorCaller, limit: Int) async throws -> [Conversation] {
        var conversations = try await store.conversations(.init(appID: visitor.appID, visitorID: visitor.visitorID, limit: limit))
        for index in conversations.indices where conversations[index].state == .queued {
            conversations[index].queuePosition = await routing.position(of: conversations[index].id)
        }
        return conversations
    }

    /// A page of history: after a seq (oldest first), or before one (the newest `limit` before it).
    /// With `wait`, an empty "after" page waits up to that long for the next event (long-poll).
    func history(_ id: ConversationID, caller: Caller, afterSeq: Int64?, beforeSeq: Int64?, limit: Int, wait: Duration?) async throws -> EventPage {
        let conversation = try await visible(id, to: caller)
        let epoch = try await store.epoch()
        let limit = min(max(limit, 1), Limits.maxEventPage)
        if let beforeSeq {
            let events = try await store.events(id, app: conversation.appID, beforeSeq: beforeSeq, limit: limit)
            return EventPage(conversationID: id, epoch: epoch, events: events, lastSeq: conversation.lastSeq,
                             hasMore: (events.first?.seq ?? 1) > 1)
        }
        let after = afterSeq ?? 0
        let read: @Sendable () async throws -> ([ConversationEvent], Int64) = { [store] in
            let events = try await store.events(id, app: conversation.appID, afterSeq: after, limit: limit + 1)
            let lastSeq = try await store.conversation(id, app: conversation.appID)?.lastSeq ?? conversation.lastSeq
            return (events, lastSeq)
        }
        let (events, lastSeq) = if let wait, wait > .zero {
            try await hub.waitForEvents(in: id, timeout: wait, check: read, isEmpty: { $0.0.isEmpty })
        } else {
            try await read()
        }
        return EventPage(conversationID: id, epoch: epoch, events: Array(events.prefix(limit)), lastSeq: lastSeq, hasMore: events.count > limit)
    }

    // MARK: Changing

    /// A visitor opens a conversation in a queue (the app's first queue when none is named).
    /// - Parameter callback: the callback request the conversation is (``CallbackService``), made for its queue.
    func open(_ request: OpenConversationRequest, by visitor: VisitorCaller, callback: Callback? = nil) async throws -> Conversation {
        if let subject = request.subject { try Validation.shortText(subject, field: "subject") }
        try Validation.attributes(request.attributes ?? [:])
        let queue = try await queue(request.queueID, app: visitor.appID)
        let now = clock.now()
        var submission = try await openingForm(request, queue: queue.id, app: visitor.appID, at: now)
        if let answers = submission?.answers { submission?.answers = try await masking.mask(answers, app: visitor.appID, field: "form_answers") }
        var subject = request.subject
        if let text = subject { subject = try await masking.mask(text, app: visitor.appID, field: "subject") }
        let attributes = try await masking.mask(request.attributes ?? [:], app: visitor.appID, field: "attributes")
        let id = ConversationID.generate(at: now)
        var callback = callback
        callback?.id = CallbackID(conversation: id)
        let commit = try await committer.commit(.open(.init(
            id: id, appID: visitor.appID, queueID: queue.id, visitorID: visitor.visitorID, visitorName: visitor.name,
            subject: subject, attributes: attributes, queueRank: RoutingState.rank(at: now), at: now,
            formSubmission: submission, callback: callback)))
        logger.debug("conversation opened", metadata: ["parley.conversation": "\(commit.conversation.id)"])
        return try await visible(commit.conversation.id, to: .visitor(visitor))
    }

    /// The queue a visitor asks for, or the app's first without one.
    /// - Throws: 404 for a queue of no such id in the app, 409 `no_queue` when the app has none.
    func queue(_ id: QueueID?, app: AppID) async throws -> Queue {
        let queues = try await store.queues(app: app)
        if let id {
            guard let match = queues.first(where: { $0.id == id }) else { throw APIError.notFound("queue not found") }
            return match
        }
        guard let first = queues.first else { throw APIError.conflict("no_queue", "the app has no queue yet") }
        return first
    }

    /// Stores a message, masked (idempotent by client message id: the same text masks the same
    /// way), and returns the commit. With an attachment, `text` is its caption (masked as well).
    func send(_ id: ConversationID, clientMessageID: String, text: String, attachment: Attachment? = nil, by caller: Caller) async throws -> ConversationCommit {
        try Validation.clientMessageID(clientMessageID)
        if attachment == nil { try Validation.messageText(text) } else { try Validation.caption(text) }
        guard let app = caller.appID else { throw APIError.notFound("conversation not found") }
        if case .visitor(let visitor) = caller { try limits.message(from: visitor.visitorID) }
        let masked = try await masking.mask(text, app: app, field: "text")
        // A custom rule's replacement may be longer than what it replaced: what is stored keeps the limits too.
        if masked != text { if attachment == nil { try Validation.messageText(masked) } else { try Validation.caption(masked) } }
        // No read before the commit: the store scopes by app and refuses a visitor who is not the
        // owner as "not found", in the same transaction. The rank is used only if it reopens.
        let now = clock.now()
        return try await committer.commit(.postMessage(.init(
            conversationID: id, appID: app, author: caller.participant, clientMessageID: clientMessageID,
            text: masked, attachment: attachment, reopenRank: RoutingState.rank(at: now), at: now)))
    }

    /// The assigned agent shows the visitor a web page: a `page_pushed` event, idempotent by its
    /// client message id like a message. The title is masked like a message's text; the URL is not
    /// (a masked URL would lead nowhere), so what it carries is the agent's choice.
    func pushPage(_ id: ConversationID, _ request: PushPageRequest, by agent: AgentCaller) async throws -> ConversationCommit {
        try request.check()
        let title = try await masking.mask(request.title, app: agent.appID, field: "title")
        if title != request.title {
            try Validation.shortText(title, field: "title", maxLength: Limits.maxPageTitleLength, required: true)
        }
        let page = PagePush(clientMessageID: request.clientMessageID, url: request.url, title: title)
        return try await committer.commit(.pushPage(.init(
            conversationID: id, appID: agent.appID, agent: Caller.agent(agent).participant, page: page, at: clock.now())))
    }

    /// Ends a conversation (a visitor's end while queued cancels it). Ending an ended one changes nothing.
    func end(_ id: ConversationID, by caller: Caller) async throws -> Conversation {
        let conversation = try await visible(id, to: caller)
        return try await committer.commit(.end(.init(conversationID: id, appID: conversation.appID, by: caller.participant, at: clock.now())))
            .conversation
    }

    /// Marks the conversation read up to `seq` for the caller.
    func markRead(_ id: ConversationID, seq: Int64, by caller: Caller) async throws -> ConversationCommit {
        let conversation = try await visible(id, to: caller)
        return try await committer.commit(.markRead(.init(
            conversationID: id, appID: conversation.appID, by: caller.participant, seq: seq, at: clock.now())))
    }

    /// Tells the conversation's other subscribers that the caller is typing (live only).
    func typing(_ id: ConversationID, isTyping: Bool, by caller: Caller, connection: UInt64? = nil) async throws {
        let conversation = try await visible(id, to: caller)
        hub.send(.typing(.init(conversationID: id, participant: caller.participant, isTyping: isTyping)), toSubscribersOf: id, except: connection)
        await nodes.announce(.typing(id, app: conversation.appID, participant: caller.participant, isTyping: isTyping))
    }

    /// An agent takes a queued conversation by hand.
    func accept(_ id: ConversationID, by agent: AgentCaller) async throws -> Conversation {
        let conversation = try await visible(id, to: .agent(agent))
        guard conversation.state == .queued else { throw APIError.conflict("invalid_state", "the conversation is not queued") }
        try await routing.accept(id, by: agent.agentID)
        return try await visible(id, to: .agent(agent))
    }

    /// Hands an assigned conversation to another agent or to the head of a queue. The assigned agent
    /// may transfer it; so may an admin of the app, whoever holds it.
    func transfer(_ id: ConversationID, _ request: TransferRequest, by caller: AgentCaller) async throws -> Conversation {
        let conversation = try await visible(id, to: .agent(caller))
        guard conversation.state == .assigned else {
            throw APIError.conflict("invalid_state", "only an assigned conversation can be transferred; this one is \(conversation.state.rawValue)")
        }
        guard conversation.agentID == caller.agentID || caller.role == .admin else {
            throw APIError.conflict("invalid_state", "only the assigned agent or an admin can transfer this conversation")
        }
        // The handover note is checked and masked before anything moves, so a bad note changes nothing.
        let note = try await handoverNote(request.note, app: caller.appID)
        let commit: ConversationCommit
        switch (request.agentID, request.queueID) {
        case (let agentID?, nil):
            guard let agent = try await store.agent(agentID)?.agent, agent.appID == caller.appID else { throw APIError.notFound("agent not found") }
            commit = try await routing.transfer(conversation, by: caller, to: agent)
        case (nil, let queueID?):
            guard try await store.queues(app: caller.appID).contains(where: { $0.id == queueID }) else { throw APIError.notFound("queue not found") }
            commit = try await routing.transfer(conversation, by: caller, to: queueID)
        default:
            throw APIError.badRequest("give exactly one of agent_id and queue_id")
        }
        if let note, let seq = commit.events.last?.seq {
            // Named after the transfer's last event, so the note is stored once per transfer.
            let stored = try await store.addNote(NewNote(
                conversationID: id, appID: caller.appID, author: .agent(caller.agentID, name: caller.name),
                clientNoteID: "transfer-\(seq)", text: note, at: clock.now()))
            if !stored.isDuplicate { hub.publish(stored.note, app: caller.appID) }
        }
        return try await visible(id, to: .agent(caller))
    }

    /// A transfer's note, trimmed and masked; nil when there is none.
    private func handoverNote(_ text: String?, app: AppID) async throws -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        try Validation.messageText(text, field: "note")
        let masked = try await masking.mask(text, app: app, field: "note")
        if masked != text { try Validation.messageText(masked, field: "note") }
        return masked
    }

    // MARK: Internal notes

    /// Stores an agent's internal note, masked like a message (idempotent by client note id), and
    /// sends it to the agents watching the conversation. Any agent of the app may write one, in
    /// any state. Notes are masked too: a note is where an agent would copy a number to.
    func addNote(_ id: ConversationID, _ request: AddNoteRequest, by caller: AgentCaller) async throws -> NoteCommit {
        try Validation.clientMessageID(request.clientNoteID, field: "client_note_id")
        try Validation.messageText(request.text)
        let text = try await masking.mask(request.text, app: caller.appID, field: "text")
        if text != request.text { try Validation.messageText(text) }
        let commit = try await store.addNote(NewNote(
            conversationID: id, appID: caller.appID, author: .agent(caller.agentID, name: caller.name),
            clientNoteID: request.clientNoteID, text: text, at: clock.now()))
        if !commit.isDuplicate { hub.publish(commit.note, app: caller.appID) }
        return commit
    }

    /// A conversation's notes after a note seq, oldest first.
    func notes(_ id: ConversationID, by caller: AgentCaller, afterSeq: Int64, limit: Int) async throws -> [InternalNote] {
        _ = try await visible(id, to: .agent(caller))
        return try await store.notes(id, app: caller.appID, afterSeq: afterSeq, limit: limit)
    }
}
