import Foundation
import Logging
import ParleyCore

/// The agent side of Parley, for the CLI, the tests and a native agent app: log in, set
/// availability, watch the inbox, accept, reply, end.
///
/// Conversations assigned to the agent are subscribed automatically; their events arrive on
/// ``events()`` in seq order and resume exactly after a reconnect. Replies and notes are masked
/// with the app's masking rules before they are sent, as a visitor's messages are.
public actor AgentClient {
    /// What happens for an agent.
    public enum Event: Sendable, Hashable {
        /// The connection's state changed.
        case connection(ConnectionState)
        /// A conversation of the app changed (queued, assigned, ended…): the inbox.
        case conversation(Conversation)
        /// A stored event of a conversation the agent follows.
        case event(ConversationEvent)
        /// Someone typing in a followed conversation.
        case typing(Participant, isTyping: Bool, in: ConversationID)
        /// An internal note was added to a followed conversation (agents only).
        case note(InternalNote)
        /// A conversation's triage (tags, priority, snooze) changed.
        case triage(Triage)
        /// A conversation's rating or form answers changed (the visitor rated it, answered the post-chat form).
        case answers(ConversationAnswers)
        /// The app's tag list changed.
        case tags(TagList)
        /// An agent of the team changed (availability, profile, connections): read the team again.
        case team(TeamChange)
    }

    let http: HTTPClient
    let logger: Logger
    private let link: RealtimeLink
    private var session: AgentSession?
    /// The app's masking rules, read at login (the built-in ones until then).
    private var masker = Masker.builtIn
    private var cursors: [ConversationID: Int64] = [:]
    private var epoch: String?
    private var observers: [UUID: AsyncStream<Event>.Continuation] = [:]
    private var watcher: Task<Void, Never>?

    /// Creates a client for a server. Nothing happens until ``login(email:password:)``.
    /// - Parameters:
    ///   - serverURL: the server, e.g. `https://chat.example.com`.
    ///   - transport: the WebSocket transport.
    ///   - httpTransport: how HTTP requests go; default ``URLSessionHTTPTransport``.
    ///   - pinnedKeys: keys the server must present (``ParleyConfiguration/pinnedKeys``); default none.
    ///   - reconnectPolicy: reconnect delays.
    ///   - clock: where reconnect delays are waited on.
    ///   - logger: the logger; default silent.
    public init(serverURL: URL, transport: any RealtimeTransport, httpTransport: (any HTTPTransport)? = nil, pinnedKeys: [PublicKeyPin] = [],
                reconnectPolicy: ReconnectPolicy = .standard,
                clock: any WallClock = SystemClock(),
                logger: Logger = Logger(label: "parley.agent", factory: { _ in SwiftLogNoOpLogHandler() })) {
        http = HTTPClient(baseURL: serverURL, transport: httpTransport ?? URLSessionHTTPTransport(), pinnedKeys: pinnedKeys)
        self.logger = logger
        let owner = WeakReference<AgentClient>()
        let handlers = RealtimeLink.Handlers(
            token: { _ in
                guard let token = await owner.value?.session?.token else { throw ParleyError.unauthorized("not logged in") }
                return token
            },
            opened: { epoch in await owner.value?.opened(epoch: epoch) },
            frame: { frame in await owner.value?.handle(frame) },
            lost: {})
        link = RealtimeLink(transport: transport, url: http.realtimeURL, pinnedKeys: pinnedKeys, policy: reconnectPolicy, logger: logger, handlers: handlers, clock: clock)
        owner.value = self
    }

    /// The logged-in agent.
    public var agent: Agent? { session?.agent }

    /// Logs in and opens the realtime connection.
    /// - Throws: ``ParleyError`` (`isAuthorizationError` for wrong credentials, `isNetworkError` when the server is down).
    @discardableResult
    public func login(email: String, password: String) async throws -> Agent {
        let session = try await http.call(.session.agentLogin, body: AgentLoginRequest(email: email, password: password))
        self.session = session
        await refreshMaskingRules()
        let states = await link.states()
        watcher = Task { [weak self] in
            for await state in states { await self?.emit(.connection(state)) }
        }
        await link.start()
        return session.agent
    }

    /// Logs out (revoking the token) and closes the connection.
    public func logout() async {
        if let token = session?.token { try? await http.call(.session.agentLogout, token: token) }
        await stop()
    }

    /// Closes the connection and ends the event streams.
    public func stop() async {
        await link.stop()
        watcher?.cancel()
        for observer in observers.values { observer.finish() }
        observers = [:]
        session = nil
    }

    /// Tries to connect at once instead of waiting out the backoff.
    public func reconnectNow() async { await link.reconnectNow() }

    /// Everything that happens, as one stream. Each call makes a new stream.
    public func events() -> AsyncStream<Event> {
        let (stream, continuation) = AsyncStream.makeStream(of: Event.self, bufferingPolicy: .bufferingNewest(4096))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        return stream
    }

    /// Sets online (takes new conversations), away (keeps current ones) or offline.
    @discardableResult
    public func setAvailability(_ availability: Availability) async throws -> Agent {
        let agent = try await http.call(.agent.setAvailability, body: AvailabilityRequest(availability: availability), token: try token())
        session?.agent = agent
        return agent
    }

    /// The app's conversations: queued, mine (assigned to me) or all.
    public func conversations(_ view: String = "mine") async throws -> [Conversation] {
        try await http.call(.conversations.list.query("view", view), token: try token()).conversations
    }

    /// Takes a queued conversation by hand.
    @discardableResult
    public func accept(_ conversation: ConversationID) async throws -> Conversation {
        let accepted = try await http.call(.conversations.accept(conversation), token: try token())
        await follow(conversation)
        return accepted
    }

    /// Replies in a conversation assigned to the agent, masked first; retries a lost answer with
    /// the same client id, so the reply is stored once. Returns the stored event.
    @discardableResult
    public func reply(_ text: String, in conversation: ConversationID) async throws -> ConversationEvent {
        try ParleyError.checkMessageText(text)
        let request = SendMessageRequest(clientMessageID: UUID().uuidString.lowercased(), text: try masker.masking(text))
        return try await retryingLostAnswers {
            try await http.call(.conversations.send(conversation), body: request, token: try token()).event
        }
    }

    /// Shows the visitor a web page: a card with `title` that opens `url` under the app's link
    /// policy (a `page_pushed` event). The title is masked like a reply. Retries a lost answer
    /// with the same client id, so the page is pushed once.
    @discardableResult
    public func pushPage(_ url: String, title: String, in conversation: ConversationID) async throws -> ConversationEvent {
        let request = PushPageRequest(clientMessageID: UUID().uuidString.lowercased(), url: url, title: try masker.masking(title))
        do {
            try request.check()
        } catch {
            throw ParleyError.invalidInput(error.description)
        }
        return try await retryingLostAnswers {
            try await http.call(.conversations.pushPage(conversation), body: request, token: try token()).event
        }
    }

    /// Ends a conversation assigned to the agent.
    @discardableResult
    public func end(_ conversation: ConversationID) async throws -> Conversation {
        try await http.call(.conversations.end(conversation), token: try token())
    }

    /// Records how a callback request the agent is connecting with went: done (`.connected`,
    /// `.done`), or, after `.noAnswer` or `.wrongNumber`, tried again at `retryAt`.
    /// - Throws: ``ParleyError``: a 409 when the conversation is no request this agent is connecting with.
    @discardableResult
    public func recordCallbackOutcome(_ outcome: CallbackOutcome, retryAt: Date? = nil, in conversation: ConversationID) async throws -> Conversation {
        try await http.call(.callbacks.outcome(conversation), body: CallbackOutcomeRequest(outcome: outcome, retryAt: retryAt), token: try token())
    }

    /// Hands a conversation to another agent of the app, who must be connected, not offline, and
    /// below capacity. Allowed for the assigned agent, or for an admin.
    @discardableResult
    public func transfer(_ conversation: ConversationID, toAgent agent: AgentID) async throws -> Conversation {
        try await http.call(.conversations.transfer(conversation), body: TransferRequest(agentID: agent), token: try token())
    }

    /// Sends a conversation to the head of a queue, to be routed again.
    @discardableResult
    public func transfer(_ conversation: ConversationID, toQueue queue: QueueID) async throws -> Conversation {
        try await http.call(.conversations.transfer(conversation), body: TransferRequest(queueID: queue), token: try token())
    }

    /// Adds an internal note, which only agents ever see, masked like a reply. Retries a lost
    /// answer with the same client id, so the note is stored once.
    @discardableResult
    public func addNote(_ text: String, in conversation: ConversationID) async throws -> InternalNote {
        try ParleyError.checkMessageText(text)
        let request = AddNoteRequest(clientNoteID: UUID().uuidString.lowercased(), text: try masker.masking(text))
        return try await retryingLostAnswers {
            try await http.call(.conversations.addNote(conversation), body: request, token: try token())
        }
    }

    /// Reads the app's masking rules; a failure keeps the ones held (the server masks again).
    private func refreshMaskingRules() async {
        do {
            let rules = try await http.call(.lifecycle.masking, token: try token())
            if rules != masker.rules { masker = try Masker(rules: rules) }
        } catch {
            logger.debug("masking rules not read", metadata: ["error": "\(error)"])
        }
    }

    /// Runs a request that carries a client id, so repeating it stores nothing twice: a lost answer
    /// (a network error) is retried up to three times.
    func retryingLostAnswers<T>(_ request: () async throws -> T) async throws -> T {
        var attempt = 0
        while true {
            do {
                return try await request()
            } catch let error as ParleyError where error.isNetworkError && attempt < 3 {
                attempt += 1
                try await Task.sleep(for: .milliseconds(200 * attempt))
            }
        }
    }

    /// A conversation's internal notes, oldest first.
    public func notes(in conversation: ConversationID) async throws -> [InternalNote] {
        try await http.call(.conversations.notes(conversation), token: try token()).notes
    }

    /// Tells the visitor the agent is typing (or stopped).
    public func setTyping(_ isTyping: Bool, in conversation: ConversationID) async {
        try? await link.send(.typing(.init(conversationID: conversation, isTyping: isTyping)))
    }

    /// The forms the visitor answered for a conversation (pre-chat or unavailable, post-chat).
    public func forms(in conversation: ConversationID) async throws -> [FormSubmission] {
        try await http.call(.conversations.forms(conversation), token: try token()).submissions
    }

    /// A conversation's transcript (no internal notes: they are not part of it), for saving or
    /// printing; render it with `plainText()` or `html()`.
    public func transcript(of conversation: ConversationID) async throws -> Transcript {
        try await http.transcript(of: conversation, token: try token())
    }

    /// Follows a conversation's events from the start (or from where it left off).
    public func follow(_ conversation: ConversationID) async {
        if cursors[conversation] == nil { cursors[conversation] = 0 }
        try? await link.send(.subscribe(.init(conversationID: conversation, afterSeq: cursors[conversation] ?? 0, epoch: epoch)))
    }

    // MARK: Internals

    func token() throws -> String {
        guard let token = session?.token else { throw ParleyError.unauthorized("not logged in") }
        return token
    }

    private func opened(epoch: String) async {
        if self.epoch != nil && self.epoch != epoch { cursors = cursors.mapValues { _ in 0 } }
        self.epoch = epoch
        if let mine = try? await conversations("mine") {
            for conversation in mine where cursors[conversation.id] == nil { cursors[conversation.id] = 0 }
        }
        for id in cursors.keys { await follow(id) }
    }

    private func handle(_ frame: ServerFrame) async {
        switch frame {
        case .event(let event):
            guard event.seq > cursors[event.conversationID] ?? 0 else { return }
            cursors[event.conversationID] = event.seq
            emit(.event(event))
        case .conversation(let conversation):
            emit(.conversation(conversation))
            if conversation.state == .assigned, conversation.agentID == session?.agent.id, cursors[conversation.id] == nil {
                await follow(conversation.id)
            }
        case .typing(let typing):
            guard typing.participant.id != session?.agent.id.rawValue else { return }
            emit(.typing(typing.participant, isTyping: typing.isTyping, in: typing.conversationID))
        case .reset(let reset):
            cursors[reset.conversationID] = 0
            epoch = reset.epoch
        case .subscribed(let subscribed):
            epoch = subscribed.epoch
        case .note(let note):
            emit(.note(note))
        case .triage(let triage):
            emit(.triage(triage))
        case .answers(let answers):
            emit(.answers(answers))
        case .tags(let list):
            emit(.tags(list))
        case .team(let change):
            emit(.team(change))
        case .error(let error):
            logger.debug("server error frame", metadata: ["code": "\(error.code)"])
        case .ready, .ack, .queuePosition, .pong:
            break
        }
    }

    private func emit(_ event: Event) {
        for observer in observers.values { observer.yield(event) }
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }
}
