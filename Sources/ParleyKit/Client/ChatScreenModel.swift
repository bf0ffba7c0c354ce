import Foundation
import ParleyCore

/// Walks a ``ChatScreenMachine`` with a real ``ParleyClient``: it performs the machine's effects
/// (fetching availability and forms, starting, cancelling and ending the conversation, sending
/// forms), feeds the answers and the conversation's events back, and publishes every screen. A UI
/// renders ``screens()`` and calls the input methods; it decides nothing itself.
public actor ChatScreenModel {
    private let client: ParleyClient
    private let queue: QueueID?
    private let subject: String?
    private var machine = ChatScreenMachine()
    private var observers: [UUID: AsyncStream<ChatScreen>.Continuation] = [:]
    private var follower: Task<Void, Never>?

    /// The conversation the screen shows, once one is started.
    public private(set) var conversationID: ConversationID?

    /// A model for a chat in `queue` (default: the client's configured queue, else the app's first),
    /// whose conversation opens with `subject`.
    public init(client: ParleyClient, queue: QueueID? = nil, subject: String? = nil) {
        self.client = client
        self.queue = queue
        self.subject = subject
    }

    /// The screen now.
    public var screen: ChatScreen { machine.screen }

    /// The current screen, then every change.
    public func screens() -> AsyncStream<ChatScreen> {
        let (stream, continuation) = AsyncStream.makeStream(of: ChatScreen.self, bufferingPolicy: .bufferingNewest(64))
        let id = UUID()
        observers[id] = continuation
        continuation.yield(machine.screen)
        continuation.onTermination = { [weak self] _ in Task { await self?.removeObserver(id) } }
        return stream
    }

    // MARK: Inputs (what the visitor does)

    /// Loads availability and forms, then shows the first screen.
    public func start() async { await apply { $0.start() } }
    public func submitPreChat(_ answers: FormAnswers) async { await apply { $0.submitPreChat(answers) } }
    public func submitOfflineForm(_ answers: FormAnswers) async { await apply { $0.submitOfflineForm(answers) } }
    public func submitPostChat(_ answers: FormAnswers) async { await apply { $0.submitPostChat(answers) } }
    public func skipPostChat() async { await apply { $0.skipPostChat() } }
    /// Leaves the queue before an agent answers.
    public func cancel() async { await apply { $0.cancel() } }
    /// Ends the chat.
    public func endChat() async { await apply { $0.endChat() } }
    /// After a recoverable error: starts over.
    public func retry() async { await apply { $0.retry() } }

    /// Stops following the conversation.
    public func stop() {
        follower?.cancel()
        follower = nil
        for observer in observers.values { observer.finish() }
        observers = [:]
    }

    // MARK: Effects

    private func apply(_ input: (inout ChatScreenMachine) -> [ChatScreenMachine.Effect]) async {
        let before = machine.screen
        let effects = input(&machine)
        if machine.screen != before { publish() }
        for effect in effects { await perform(effect) }
    }

    private func perform(_ effect: ChatScreenMachine.Effect) async {
        do {
            switch effect {
            case .fetchAvailability:
                let report = try await client.availability(queue: queue)
                await apply { $0.availabilityLoaded(report) }
            case .fetchForms:
                let forms = try await client.forms(queue: queue)
                await apply { $0.formsLoaded(ChatForms(preChat: forms.preChat, unavailable: forms.unavailable, postChat: forms.postChat)) }
            case .startConversation(let answers):
                // Listening before the conversation exists: an agent may take it at once.
                let events = await client.events()
                let conversation = try await client.openConversation(
                    queue: queue, subject: subject, formAnswers: answers.isEmpty && machine.forms?.preChat == nil ? nil : FormAnswers(answers))
                conversationID = conversation.id
                follow(conversation.id, events: events)
                await apply { $0.conversationQueued(position: conversation.queuePosition) }
                if conversation.state == .assigned { await apply { $0.conversationAssigned() } }
            case .cancelConversation, .endConversation:
                if let id = conversationID { try await client.end(id) }
            case .submitOfflineForm(let answers):
                let conversation = try await client.openConversation(queue: queue, subject: subject, formAnswers: FormAnswers(answers), offline: true)
                conversationID = conversation.id
                await apply { $0.submissionAccepted() }
            case .submitPostChat(let answers):
                guard let id = conversationID else { return }
                try await client.submitPostChat(FormAnswers(answers), in: id)
                await apply { $0.submissionAccepted() }
            }
        } catch let error as ParleyError {
            if let refused = error.formErrors {
                await apply { $0.submissionRejected(refused) }
            } else {
                await apply { $0.failed(error) }
            }
        } catch {
            await apply { $0.failed(ParleyError.network("\(error)")) }
        }
    }

    /// Turns the conversation's events into the machine's inputs: queue positions, the agent
    /// joining, the end.
    private func follow(_ id: ConversationID, events: AsyncStream<ParleyEvent>) {
        follower?.cancel()
        follower = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                switch event {
                case .queuePosition(let position, let conversation) where conversation == id:
                    await self.apply { $0.queueUpdated(position: position, estimatedWaitSeconds: nil) }
                case .event(let stored) where stored.conversationID == id:
                    guard case .stateChanged(let change) = stored.body else { continue }
                    switch change.to {
                    case .assigned: await self.apply { $0.conversationAssigned() }
                    case .ended: await self.apply { $0.conversationEnded() }
                    case .queued: break
                    }
                default:
                    continue
                }
            }
        }
    }

    private func publish() {
        for observer in observers.values { observer.yield(machine.screen) }
    }

    private func removeObserver(_ id: UUID) { observers[id] = nil }
}
