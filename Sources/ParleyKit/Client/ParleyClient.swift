import Foundation
import Logging
import ParleyCore

/// The visitor side of Parley: a user of your app talking to your support agents.
///
/// ```swift
/// let client = ParleyClient(configuration: .init(serverURL: url, appID: appID), transport: transport)
/// try await client.start()
/// let conversation = try await client.openConversation(subject: "My order")
/// _ = try await client.send("Hello!", in: conversation.id)
/// ```
///
/// `send` writes the message to local storage before it returns; the client delivers it exactly
/// once, in order, across reconnects and app restarts. Reconnects are automatic (``ReconnectPolicy``);
/// after each, the client resumes every conversation after the last seq it has.
///
/// What the app's masking rules find (card numbers, social security numbers, IBANs, the admin's
/// own patterns) is masked before a text is stored on the device or sent: messages, subjects,
/// attributes, form answers, rating comments. `send` returns the masked text, so the user sees
/// what was hidden. The rules come from the server on each connection and are kept in storage;
/// until they have been read once, the built-in ones apply.
public actor ParleyClient {
    /// The configuration the client was made with.
    public nonisolated let configuration: ParleyConfiguration
    /// Observable state for UIs.
    public nonisolated let state = ParleyState()

    let http: HTTPClient
    let storage: any ParleyStorage
    let logger: Logger
    private let link: RealtimeLink
    private var secrets: StoredSecrets?
    var outbox = OutboxMachine()
    /// The uploads of files in the outbox under way, by client message id.
    var uploads: [String: Task<Void, Never>] = [:]
    /// Who listens to each upload's progress.
    var uploadObservers: [String: [UUID: AsyncStream<FileProgress>.Continuation]] = [:]
    /// Each upload's latest report, for an observer that comes in the middle.
    var uploadFigures: [String: FileProgress] = [:]
    /// The app's attachment policy as last read from the server.
    var cachedPolicy: AttachmentPolicy?
    /// The app's masking rules, compiled: the built-in ones until the app's have been read.
    var masker = Masker.builtIn
    /// The store epoch the held seqs belong to (the history itself lives in `snapshots` and storage).
    var epoch: String?
    /// Every known conversation; one restored from storage holds its events only once they are
    /// needed (`ParleyClient+StoredHistory.swift`).
    var snapshots: [ConversationID: ConversationSnapshot] = [:]
    /// Models exist for the conversations the app asked for (``conversation(_:)``): a history of
    /// many conversations is not turned into screens nobody opened.
    private var models: [ConversationID: ConversationModel] = [:]
    /// Each conversation's unread count as last published, so an event costs its own conversation.
    private var unreadCounts: [ConversationID: Int] = [:]
    private var observers: [UUID: AsyncStream<ParleyEvent>.Continuation] = [:]
    private var isStarted = false
    /// With a verified user in the default location: the device's own (anonymous) storage, whose
    /// device id the user's storage starts with.
    private let deviceStorage: FileStorage?
    /// True when the client made its storage (the default location): sign-out removes its files.
    private let ownsStorage: Bool
    private var lastUnread = 0
    private var connectionWatcher: Task<Void, Never>?

    /// Creates a client. Nothing happens until ``start()``.
    /// - Parameters:
    ///   - configuration: the server, the app and how the client behaves.
    ///   - transport: the WebSocket transport (`URLSessionTransport` on Apple platforms,
    ///     `NIOWebSocketTransport` from ParleyKitNIO elsewhere).
    ///   - storage: where the outbox, history and secrets live; default ``FileStorage`` in
    ///     ``ParleyConfiguration/storage`` (for a verified user, a folder of that user's within it,
    ///     so one user's history never shows to the next on a shared device). A storage given here
    ///     must likewise be one per user.
    public init(configuration: ParleyConfiguration, transport: any RealtimeTransport, storage: (any ParleyStorage)? = nil) {
        self.configuration = configuration
        self.http = HTTPClient(
            baseURL: configuration.serverURL,
            transport: configuration.httpTransport ?? URLSessionHTTPTransport(session: configuration.urlSession),
            headers: configuration.customHeaders, pinnedKeys: configuration.pinnedKeys)
        ownsStorage = storage == nil
        if let storage {
            self.storage = storage
            deviceStorage = nil
        } else {
            let base = configuration.storage.directoryURL
            let files = { (directory: URL) in
                FileStorage(directory: directory, encryption: configuration.storageEncryption, logger: configuration.logger)
            }
            if let userID = configuration.identity.userID {
                self.storage = files(base.appendingPathComponent(UserFolder.name(app: configuration.appID, user: userID), isDirectory: true))
                deviceStorage = files(base)
            } else {
                self.storage = files(base)
                deviceStorage = nil
            }
        }
        self.logger = configuration.logger
        // The link calls back into the client; the client owns the link, so the link holds it weakly.
        let owner = WeakReference<ParleyClient>()
        let handlers = RealtimeLink.Handlers(
            token: { renew in
                guard let client = owner.value else { throw ParleyError.stopped }
                return try await client.token(renew: renew)
            },
            opened: { epoch in await owner.value?.opened(epoch: epoch) },
            frame: { frame in await owner.value?.handle(frame) },
            lost: { await owner.value?.lost() })
        link = RealtimeLink(
            transport: transport, url: http.realtimeURL, headers: configuration.customHeaders, pinnedKeys: configuration.pinnedKeys,
            policy: configuration.reconnectPolicy,
            logger: logger, handlers: handlers,
            clock: configuration.clock)
        owner.value = self
    }

    // MARK: Lifecycle

    /// Loads local state and starts connecting. Works offline: messages sent meanwhile wait in the
    /// outbox. - Throws: ``ParleyError`` when local storage cannot be read.
    public func start() async throws {
        guard !isStarted else { return }
        isStarted = true
        if let stored = try storage.loadSecrets() {
            secrets = stored
        } else {
            // First use on this device: its id is what makes the same device the same visitor. A
            // user's first sign-in takes the device's id, so the server can hand the user what the
            // device wrote anonymously.
            let deviceID = (try? deviceStorage?.loadSecrets())??.deviceID ?? UUID().uuidString.lowercased()
            let fresh = StoredSecrets(deviceID: deviceID)
            try storage.saveSecrets(fresh)
            secrets = fresh
        }
        outbox = OutboxMachine(items: try storage.loadOutbox())
        removeUnnamedCopies()
        restoreMaskingRules()
        try restoreHistory()
        for item in outbox.items where snapshots[item.conversationID] == nil {
            snapshots[item.conversationID] = ConversationSnapshot(id: item.conversationID)
        }
        let states = await link.states()
        connectionWatcher = Task { [weak self] in
            for await state in states { await self?.connectionChanged(state) }
        }
        await link.start()
        await refreshAll()
    }

    /// Signs out: the server refuses this session's token from then on (its sockets close), the
    /// client stops, and what it kept on this device for this identity is wiped: history, unsent
    /// messages and the session. Only the device id stays. Use a new client afterwards (for the next
    /// user, or `.anonymous`).
    ///
    /// With the default ``FileStorage`` the files themselves go (a verified user's whole folder); a
    /// storage given to the client is emptied through ``ParleyStorage`` (its outbox, events and
    /// session; conversation summaries stay unless it forgets them on ``ParleyStorage/resetHistory(epoch:)``).
    /// - Throws: ``ParleyError`` (`network`) when the server could not be told; the device is
    ///   wiped all the same, and the token stays valid on the server until it expires.
    public func logout() async throws {
        var unreachable: (any Error)?
        if let token = secrets?.token {
            do {
                // The device's pushes stop first (Unblu): the next user of this phone must not get them.
                if let deviceID = secrets?.deviceID {
                    try await http.call(.push.unregister(DeviceIDParameter(deviceID)), token: token)
                }
                try await http.call(.session.visitorLogout, token: token)
            } catch let error as ParleyError where error.isAuthorizationError {
                // Already refused (expired or signed out elsewhere): nothing left to revoke.
            } catch {
                unreachable = error
            }
        }
        await stop()
        try wipe()
        if let unreachable { throw unreachable }
    }

    private func wipe() throws {
        let deviceID = secrets?.deviceID ?? UUID().uuidString.lowercased()
        snapshots = [:]
        try? FileManager.default.removeItem(at: outgoingFolder)
        if let files = storage as? FileStorage, ownsStorage {
            // A verified user's folder is theirs alone; the device's own folder keeps the device id.
            if configuration.identity.userID != nil { files.removeAll() } else { try files.removeHistoryAndOutbox(keepingDeviceID: deviceID) }
        } else {
            for item in try storage.loadOutbox() { try storage.removeOutbox(clientMessageID: item.clientMessageID) }
            try storage.resetHistory(epoch: nil)
            try storage.saveSecrets(StoredSecrets(deviceID: deviceID))
        }
        secrets = StoredSecrets(deviceID: deviceID)
    }

    /// Stops: closes the socket, cancels timers and ends every event stream. Unsent messages stay
    /// in the outbox for the next start.
    public func stop() async {
        guard isStarted else { return }
        isStarted = false
        await link.stop()
        connectionWatcher?.cancel()
        connectionWatcher = nil
        for observer in observers.values { observer.finish() }
        observers = [:]
        await MainActor.run { state.connectionState = .stopped }
    }

    /// Tries to connect at once instead of waiting out the backoff (the app came to the foreground,
    /// or the network came back).
    public func reconnectNow() async { await link.reconnectNow() }

    /// The connection's states, starting with the current one.
    public func connectionStates() async -> AsyncStream<ConnectionState> { await link.states() }

    /// Everything that happens, as one stream. Each call makes a new stream. An event, a typing
    /// change or a queue position arrives here after the conversation's model shows it.
    public func events() -> AsyncStream<ParleyEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ParleyEvent.self, bufferingPolicy: .bufferingNewest(1024))
        let id = UUID()
        observers[id] = continuation
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        return stream
    }

    /// The unread count whenever it changes: Pyrus' `subscribeToReplies`/`onNewReply(hasUnreadComments:)`.
    public func unreadUpdates() -> AsyncStream<Int> {
        let events = events()
        return AsyncStream { continuation in
            let task = Task {
                for await event in events {
                    if case .unread(let count, _) = event { continuation.yield(count) }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The visitor's id, once the server has told it.
    public var visitorID: VisitorID? { secrets?.visitorID }

    /// The masking rules the client applies now: the app's as last read from the server (or kept in
    /// storage), else the built-in ones (`MaskingRules.defaults`).
    public var maskingRules: MaskingRules { masker.rules }

    // MARK: Conversations

    /// The visitor's conversations from the server, newest activity first.
    public func conversations() async throws -> [Conversation] {
        let list = try await http.call(.conversations.list, token: try await token(renew: false))
        for conversation in list.conversations { remember(conversation) }
        await publishSummaries()
        return list.conversations
    }

    /// Opens a new conversation (in the configured default queue unless one is given).
    /// - Parameters:
    ///   - queue: the queue (default: the configured queue, else the app's first).
    ///   - subject: one line agents see first.
    ///   - attributes: shown to agents, merged over the configured custom attributes.
    ///   - formAnswers: answers to the queue's pre-chat form, or with `offline`, its unavailable
    ///     form; check them first with `Form.validate(_:)`, the same rules the server applies.
    ///   - offline: true when the chat is closed or nobody is online: the conversation waits for an
    ///     agent to answer later, and the reply arrives like any other.
    ///
    /// The subject, the attributes' values and the answers' text are masked before they are sent.
    /// - Throws: ``ParleyError`` (`isNetworkError` while offline; a 400 `invalid_form` with the fields).
    public func openConversation(queue: QueueID? = nil, subject: String? = nil, attributes: [String: String] = [:],
                                 formAnswers: FormAnswers? = nil, offline: Bool = false) async throws -> Conversation {
        var merged = configuration.customAttributes.merging(attributes) { _, new in new }
        merged["locale"] = merged["locale"] ?? configuration.locale.identifier
        let request = OpenConversationRequest(
            queueID: queue ?? configuration.defaultQueueID, subject: try subject.map { try masker.masking($0, field: "subject") },
            attributes: try masker.masking(merged), formAnswers: try formAnswers.map { try masker.masking($0) }, offline: offline ? true : nil)
        let conversation = try await http.call(.conversations.open, body: request, token: try await token(renew: false))
        remember(conversation)
        snapshots[conversation.id]?.queuePosition = conversation.queuePosition
        await subscribe(conversation.id)
        await publish(conversation.id)
        await publishSummaries()
        return conversation
    }

    /// The observable model of a conversation, loading it from the server when it is not known
    /// yet (a deep link from a notification).
    public func conversation(_ id: ConversationID) async throws -> ConversationModel {
        if snapshots[id]?.summary == nil {
            let conversation = try await http.call(.conversations.get(id), token: try await token(renew: false))
            remember(conversation)
            snapshots[id]?.queuePosition = conversation.queuePosition
            await subscribe(id)
        }
        await readStoredEvents(of: id)
        let model = model(id)
        await publish(id)
        return model
    }

    /// Sends a text message. It is masked first (the message returned, the one stored on the
    /// device and the one sent all hold the masked text), is in local storage when this returns,
    /// shown as pending, and is delivered exactly once when the connection allows, in order with the
    /// conversation's others.
    /// - Throws: ``ParleyError/invalidInput(_:)`` for empty or too long text; `.storage` when it cannot be saved.
    @discardableResult
    public func send(_ text: String, in conversation: ConversationID) async throws -> ChatMessage {
        try ParleyError.checkMessageText(text)
        let text = try masker.masking(text)
        try ParleyError.checkMessageText(text)
        if snapshots[conversation] == nil { snapshots[conversation] = ConversationSnapshot(id: conversation) }
        let item = OutboxItem(clientMessageID: UUID().uuidString.lowercased(), conversationID: conversation, text: text, createdAt: configuration.clock.now())
        try await perform(outbox.enqueue(item))
        await publish(conversation)
        return ChatMessage(id: item.clientMessageID, seq: nil, text: text, author: .visitor(visitorID ?? VisitorID(rawValue: ""), name: configuration.userName),
                           createdAt: item.createdAt, deliveryState: .pending, isMine: true)
    }

    /// Sends a failed message again.
    public func retry(_ messageID: String) async throws { try await perform(outbox.retry(messageID)) }

    /// Gives up a failed message.
    public func discard(_ messageID: String) async throws { try await perform(outbox.discard(messageID)) }

    /// Ends the conversation (the visitor leaves; the agent is told).
    public func end(_ conversation: ConversationID) async throws {
        let updated = try await http.call(.conversations.end(conversation), token: try await token(renew: false))
        remember(updated)
        await publish(conversation)
    }

    /// The forms a queue's chat shows (default: the configured queue, else the app's first).
    public func forms(queue: QueueID? = nil) async throws -> FormSet {
        let queue = queue ?? configuration.defaultQueueID
        return try await http.call(.lifecycle.forms.query("queue", queue), token: try await token(renew: false))
    }

    /// Answers the post-chat form of a conversation that has ended; the answers' text is masked
    /// before it is sent.
    @discardableResult
    public func submitPostChat(_ answers: FormAnswers, in conversation: ConversationID) async throws -> FormSubmission {
        let request = SubmitFormRequest(answers: try masker.masking(answers, field: "answers"))
        return try await http.call(.conversations.submitPostChat(conversation), body: request, token: try await token(renew: false))
    }

    /// The chat's look: the server's appearance for the app, with what ``ParleyConfiguration/appearance``
    /// sets taking its place. The welcome message is for display only: it is never stored or sent.
    public func appearance() async throws -> Appearance {
        let served = try await http.call(.lifecycle.appearance, token: try await token(renew: false))
        return served.overridden(by: configuration.appearance)
    }

    /// Where the app's chat links go: hosts opened inside the chat view, and whether other links
    /// open outside it or not at all (`LinkPolicy.decide(_:)`). Set by the app's admins.
    public func linkPolicy() async throws -> LinkPolicy {
        try await http.call(.lifecycle.linkPolicy, token: try await token(renew: false))
    }

    /// Whether a chat can start now in a queue (default: the configured queue, else the app's
    /// first): open with an estimated wait, closed until the next opening, or no agent online.
    public func availability(queue: QueueID? = nil) async throws -> AvailabilityReport {
        let queue = queue ?? configuration.defaultQueueID
        return try await http.call(.lifecycle.availability.query("queue", queue), token: try await token(renew: false))
    }

    /// Rates a conversation that has ended, 1 (bad) to 5 (great), with an optional comment (masked
    /// before it is sent). Rating again replaces the earlier rating.
    /// - Throws: ``ParleyError`` — invalid input for a score outside 1…5, a conflict when the
    ///   conversation has not ended or nobody answered it.
    @discardableResult
    public func rate(_ conversation: ConversationID, score: Int, comment: String? = nil) async throws -> Rating {
        guard (1...5).contains(score) else { throw ParleyError.invalidInput("score: 1 to 5") }
        let request = RatingRequest(score: score, comment: try comment.map { try masker.masking($0, field: "comment") })
        return try await http.call(.conversations.rate(conversation), body: request, token: try await token(renew: false))
    }

    /// The conversation's transcript, from its whole history on the server. Render it with
    /// `plainText()` or `html()` to save, print or share it; the HTML escapes everything written.
    public func transcript(of conversation: ConversationID) async throws -> Transcript {
        try await http.transcript(of: conversation, token: try await token(renew: false))
    }

    /// Cancels a conversation that is still waiting in the queue (the same as ending it then).
    public func cancel(_ conversation: ConversationID) async throws { try await end(conversation) }

    /// Marks everything in the conversation read, on every device of the visitor.
    public func markRead(_ conversation: ConversationID) async throws {
        guard let seq = snapshots[conversation]?.lastSeq, seq > 0 else { return }
        guard (snapshots[conversation]?.readSeq(by: .visitor) ?? 0) < seq else { return }
        try await http.call(.conversations.read(conversation), body: ReadRequest(seq: seq), token: try await token(renew: false))
    }

    /// Tells the agent the visitor is typing (or stopped). Dropped while offline.
    public func setTyping(_ isTyping: Bool, in conversation: ConversationID) async {
        try? await link.send(.typing(.init(conversationID: conversation, isTyping: isTyping)))
    }

    // MARK: Session

    /// The device id the visitor's session was made with (push registrations are per device).
    /// This install's push keys: kept with the device id, made and stored on first use.
    func storedPushKeys() throws -> PushKeys {
        guard var secrets else { throw ParleyError.stopped }
        if let raw = secrets.pushKeys, let keys = try? PushKeys(rawRepresentation: raw) { return keys }
        let keys = PushKeys()
        secrets.pushKeys = keys.rawRepresentation
        try storage.saveSecrets(secrets)
        self.secrets = secrets
        return keys
    }

    func pushDeviceID() throws -> String {
        guard let deviceID = secrets?.deviceID else { throw ParleyError.stopped }
        return deviceID
    }

    func token(renew: Bool) async throws -> String {
        guard var secrets else { throw ParleyError.stopped }
        // A stored token serves only the identity it was issued to: an app that signs a user in
        // (or out) gets a new session, never the previous one's.
        if !renew, secrets.userID == configuration.identity.userID, let token = secrets.token, let expiry = secrets.tokenExpiresAt,
           expiry.timeIntervalSinceNow > 60 {
            return token
        }
        // The name and attributes the app gives are masked like anything else the visitor writes.
        let attributes = configuration.customAttributes.isEmpty ? nil : try masker.masking(configuration.customAttributes)
        let session = try await http.call(
            .session.visitor,
            body: VisitorSessionRequest(appID: configuration.appID, deviceID: secrets.deviceID,
                                        name: try configuration.userName.map { try masker.masking($0, field: "name") },
                                        email: configuration.userEmail, attributes: attributes, identity: configuration.identity.proof))
        secrets.token = session.token
        secrets.tokenExpiresAt = session.expiresAt
        secrets.visitorID = session.visitor.id
        secrets.userID = session.visitor.userID
        self.secrets = secrets
        try storage.saveSecrets(secrets)
        return session.token
    }

    // MARK: Realtime

    private func opened(epoch: String) async {
        if self.epoch != nil && self.epoch != epoch {
            // Another database: what we hold cannot be resumed; subscriptions start over.
            for id in snapshots.keys { snapshots[id]?.reset() }
            unreadCounts = [:]
            storeHistory { try $0.resetHistory(epoch: epoch) }
        } else if self.epoch == nil {
            storeHistory { try $0.saveEpoch(epoch) }
        }
        self.epoch = epoch
        await refreshMaskingRules()
        _ = try? await conversations()
        for id in snapshots.keys { await subscribe(id) }
        try? await perform(outbox.connectionOpened())
    }

    // MARK: Masking

    /// The rules kept in storage, if any; a storage that cannot give them leaves the built-in ones.
    private func restoreMaskingRules() {
        do {
            if let rules = try storage.loadMaskingRules(), rules != masker.rules { masker = try Masker(rules: rules) }
        } catch {
            logger.warning("masking rules not restored; the built-in ones apply", metadata: ["error": "\(error)"])
        }
    }

    /// Reads the app's rules (on every connection: an admin may have changed them) and keeps them.
    /// A failure keeps the rules held: the server masks again in any case.
    private func refreshMaskingRules() async {
        do {
            let rules = try await http.call(.lifecycle.masking, token: try await token(renew: false))
            guard rules != masker.rules else { return }
            masker = try Masker(rules: rules)
            try storage.saveMaskingRules(rules)
        } catch {
            logger.debug("masking rules not refreshed", metadata: ["error": "\(error)"])
        }
    }

    private func lost() async {
        try? await perform(outbox.connectionLost())
    }

    func subscribe(_ id: ConversationID) async {
        let after = snapshots[id]?.lastSeq ?? 0
        try? await link.send(.subscribe(.init(conversationID: id, afterSeq: after, epoch: after > 0 ? epoch : nil)))
    }

    private func handle(_ frame: ServerFrame) async {
        switch frame {
        case .event(let event):
            apply(event)
            await readStoredEventsIfNeeded(of: event.conversationID)
            // The model first: whoever hears of the event and looks at the model sees it there.
            await publish(event.conversationID)
            emit(.event(event))
        case .ack(let ack):
            guard let clientID = ack.event.message?.clientMessageID else { return }
            apply(ack.event)
            await readStoredEventsIfNeeded(of: ack.event.conversationID)
            try? await perform(outbox.acknowledged(clientID, event: ack.event))
            await publish(ack.event.conversationID)
        case .subscribed(let subscribed):
            if epoch != subscribed.epoch {
                epoch = subscribed.epoch
                storeHistory { try $0.saveEpoch(subscribed.epoch) }
            }
        case .reset(let reset):
            snapshots[reset.conversationID]?.reset()
            unreadCounts[reset.conversationID] = nil
            storeHistory { try $0.resetEvents(of: reset.conversationID) }
            if epoch != reset.epoch {
                epoch = reset.epoch
                storeHistory { try $0.saveEpoch(reset.epoch) }
            }
            emit(.reset(reset.conversationID))
        case .typing(let typing):
            guard typing.participant.role != .visitor else { return }
            if typing.isTyping { snapshots[typing.conversationID]?.typing.insert(typing.participant) } else { snapshots[typing.conversationID]?.typing.remove(typing.participant) }
            await publish(typing.conversationID)
            emit(.typing(typing.participant, isTyping: typing.isTyping, in: typing.conversationID))
        case .queuePosition(let position):
            snapshots[position.conversationID]?.queuePosition = position.position
            await publish(position.conversationID)
            emit(.queuePosition(position.position, in: position.conversationID))
        case .conversation(let conversation):
            let isNew = snapshots[conversation.id] == nil
            remember(conversation)
            if isNew { await subscribe(conversation.id) }
            await publish(conversation.id)
            await publishSummaries()
        case .error(let error):
            // A refused send names its client message id in `ref`.
            if let ref = error.ref, outbox.items.contains(where: { $0.clientMessageID == ref }) {
                let fatal = !["internal", "http_503", "http_429"].contains(error.code)
                try? await perform(outbox.refused(ref, reason: error.message, isFatal: fatal))
                if let conversation = error.conversationID { await publish(conversation) }
            }
        case .ready, .pong, .note, .triage, .answers, .tags, .team:
            // Notes are for agents; the server never sends one to a visitor.
            break
        }
    }

    /// Applies an event only when it continues the conversation without a gap, and appends it to
    /// storage; a later one waits for the subscription, which delivers everything in order.
    private func apply(_ event: ConversationEvent) {
        let id = event.conversationID
        guard event.seq == (snapshots[id]?.lastSeq ?? 0) + 1 else { return }
        let before = snapshots[id]?.summary
        // Changed in place, so the events array is not copied for each event.
        snapshots[id, default: ConversationSnapshot(id: id)].apply(event)
        storeHistory { try $0.appendEvents([event], to: id) }
        // A start shows the stored summary without reading the events: store what they changed in it.
        if let after = snapshots[id]?.summary, let before, after.state != before.state || after.agentID != before.agentID {
            storeHistory { try $0.saveConversation(after) }
        }
    }

    func perform(_ actions: [OutboxMachine.Action]) async throws {
        for action in actions {
            switch action {
            case .store(let item):
                try storage.appendOutbox(item)
            case .update(let item):
                try storage.updateOutbox(item)
            case .remove(let clientMessageID):
                try storage.removeOutbox(clientMessageID: clientMessageID)
            case .transmit(let item) where item.file != nil:
                // A file goes over HTTP (the socket carries text); its answer acknowledges it.
                startUpload(item)
            case .transmit(let item):
                try? await link.send(.send(.init(ref: item.clientMessageID, conversationID: item.conversationID,
                                                 clientMessageID: item.clientMessageID, text: item.text)))
            case .delivered(let item, let event):
                if let file = item.file { removeOutgoingCopy(file) }
                emit(.delivered(ChatMessage(id: item.clientMessageID, seq: event.seq, text: item.text, author: event.author,
                                            createdAt: event.createdAt, deliveryState: .sent, isMine: true, attachment: event.message?.attachment),
                                in: item.conversationID))
            case .failed(let item, let reason):
                emit(.failed(ChatMessage(id: item.clientMessageID, seq: nil, text: item.text, author: .visitor(visitorID ?? VisitorID(rawValue: ""), name: nil),
                                         createdAt: item.createdAt, deliveryState: .failed(reason), isMine: true), in: item.conversationID))
            }
        }
    }

    // MARK: Publishing

    func remember(_ conversation: Conversation) {
        var snapshot = snapshots[conversation.id] ?? ConversationSnapshot(id: conversation.id)
        var summary = conversation
        if let known = snapshot.summary, known.lastSeq > summary.lastSeq { summary.lastSeq = known.lastSeq }
        // What storage holds, replayed, gives the summary in memory: store only a change.
        let isChanged = snapshot.summary != summary
        snapshot.summary = summary
        if let position = conversation.queuePosition { snapshot.queuePosition = position }
        snapshots[conversation.id] = snapshot
        if isChanged { storeHistory { try $0.saveConversation(summary) } }
    }

    private func model(_ id: ConversationID) -> ConversationModel {
        if let model = models[id] { return model }
        let model = ConversationModel(id: id)
        models[id] = model
        return model
    }

    func publish(_ id: ConversationID) async {
        guard let snapshot = snapshots[id] else { return }
        if let model = models[id] {
            let pending = outbox.items
            let visitor = visitorID
            await MainActor.run { model.update(from: snapshot, pending: pending, visitor: visitor) }
        }
        unreadCounts[id] = snapshot.unreadCount
        let unread = unreadCounts.values.reduce(0, +)
        if unread != lastUnread {
            lastUnread = unread
            emit(.unread(count: unread, hasUnread: unread > 0))
            await MainActor.run { state.unreadCount = unread }
        }
    }

    func publishSummaries() async {
        let list = snapshots.values.compactMap(\.summary).sorted { ($0.updatedAt, $0.id) > ($1.updatedAt, $1.id) }
        await MainActor.run { state.conversations = list }
    }

    private func refreshAll() async {
        for id in snapshots.keys { await publish(id) }
        await publishSummaries()
    }

    private func connectionChanged(_ connection: ConnectionState) async {
        emit(.connection(connection))
        await MainActor.run { state.connectionState = connection }
    }

    private func emit(_ event: ParleyEvent) {
        for observer in observers.values { observer.yield(event) }
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }

    /// Stores one change of the history. A failure is logged, not thrown: what is missing is
    /// fetched again from the server (the client resumes after the last seq storage holds).
    func storeHistory(_ change: (any ParleyStorage) throws -> Void) {
        do {
            try change(storage)
        } catch {
            logger.warning("history not saved", metadata: ["error": "\(error)"])
        }
    }
}
