import Foundation
import ParleyCore

/// The forms a chat may show, as the server delivers them for the app and queue; nil when not defined.
public struct ChatForms: Hashable, Sendable {
    public var preChat: Form?
    public var unavailable: Form?
    public var postChat: Form?

    /// Creates the set; a form with no fields counts as none.
    public init(preChat: Form? = nil, unavailable: Form? = nil, postChat: Form? = nil) {
        self.preChat = preChat.flatMap { $0.fields.isEmpty ? nil : $0 }
        self.unavailable = unavailable.flatMap { $0.fields.isEmpty ? nil : $0 }
        self.postChat = postChat.flatMap { $0.fields.isEmpty ? nil : $0 }
    }
}

/// A form on screen: the form, the errors of the last submission, and whether one is under way.
public struct FormScreen: Hashable, Sendable {
    public var form: Form
    /// Why the last submission was refused (by `Form.validate(_:)` here, or by the server).
    public var errors: FormValidationErrors?
    /// True from submission until the server answers; inputs are disabled meanwhile.
    public var isSubmitting: Bool
    /// A recoverable failure of the last submission (the network, say): show it, let the visitor resend.
    public var failure: ParleyError?

    /// A fresh form with no errors.
    public init(form: Form, errors: FormValidationErrors? = nil, isSubmitting: Bool = false, failure: ParleyError? = nil) {
        self.form = form
        self.errors = errors
        self.isSubmitting = isSubmitting
        self.failure = failure
    }
}

/// Why a chat cannot start now.
public enum UnavailableReason: Hashable, Sendable {
    /// Outside business hours; opens next at the date when known.
    case closed(nextOpening: Date?)
    /// Within hours, but no agent is online.
    case noAgentOnline
    /// The visitor cancelled while waiting in the queue.
    case cancelled
}

/// What the chat screen shows: BoldChat's screens as one value a UI renders.
public enum ChatScreen: Hashable, Sendable {
    /// Fetching availability and forms, or starting the conversation.
    case loading
    /// The pre-chat form.
    case preChat(FormScreen)
    /// Waiting for an agent.
    case queued(position: Int?, estimatedWaitSeconds: Int?)
    /// Talking to an agent.
    case chatting
    /// The post-chat form (typically a rating and a comment).
    case postChat(FormScreen)
    /// Over.
    case ended
    /// No chat now; the unavailable form when the app has one (its answers become an offline conversation).
    case unavailable(UnavailableReason, FormScreen?)
    /// The unavailable form was sent; agents will answer later.
    case offlineSubmitted
    /// Something failed; offer a retry when the error is not fatal (``ParleyError/isFatal``).
    case error(ParleyError)
}

/// The chat screen's flow as a pure state machine: inputs in, effects out, no I/O.
///
///     loading ──open, pre-chat form──▶ preChat ──submitted──▶ (starting) ──queued──▶ queued ──assigned──▶ chatting
///        │ └──open, no form──────────────────────▶ (starting) ─────────────────────┘        │ cancel      │ ended
///        │                                                                                   ▼             ▼
///        ├──closed / no agent──▶ unavailable ──offline form sent──▶ offlineSubmitted    unavailable   postChat ──▶ ended
///        └──failure──▶ error ──retry (not fatal)──▶ loading                                       (or ended without a form)
///
/// Inputs that do not fit the current screen are ignored: they return no effects and change nothing.
/// Forms are validated here with `Form.validate(_:)`, the same rules the server applies, before
/// anything is sent; a refusal by the server comes back through ``submissionRejected(_:)``.
public struct ChatScreenMachine: Hashable, Sendable {
    /// What the client must do.
    public enum Effect: Hashable, Sendable {
        /// Ask the server whether the queue is open (answer with ``availabilityLoaded(_:)``).
        case fetchAvailability
        /// Fetch the app's and queue's forms (answer with ``formsLoaded(_:)``).
        case fetchForms
        /// Start a conversation carrying the normalised pre-chat answers (empty without a form).
        case startConversation(preChatAnswers: [String: FormValue])
        /// Cancel the queued conversation.
        case cancelConversation
        /// End the conversation.
        case endConversation
        /// Send the normalised unavailable-form answers, which create an offline conversation.
        case submitOfflineForm([String: FormValue])
        /// Send the normalised post-chat answers (the rating and comment).
        case submitPostChat([String: FormValue])
    }

    public private(set) var screen: ChatScreen = .loading
    /// The last availability report, once loaded.
    public private(set) var availability: AvailabilityReport?
    /// The forms, once loaded.
    public private(set) var forms: ChatForms?
    private var isFetching = false
    /// How long one place in the queue takes, from the last estimate: what keeps an estimate as
    /// the position moves.
    private var secondsPerPlace: Double?
    private var isStarting = false

    /// A machine on the loading screen; call ``start()``.
    public init() {}

    /// The screen opened: fetch what the first decision needs.
    public mutating func start() -> [Effect] {
        guard case .loading = screen, !isFetching, !isStarting, availability == nil || forms == nil else { return [] }
        isFetching = true
        return [.fetchAvailability, .fetchForms]
    }

    /// The availability answer arrived.
    public mutating func availabilityLoaded(_ report: AvailabilityReport) -> [Effect] {
        guard case .loading = screen, isFetching, availability == nil else { return [] }
        availability = report
        return decideAfterLoading()
    }

    /// The forms arrived.
    public mutating func formsLoaded(_ loaded: ChatForms) -> [Effect] {
        guard case .loading = screen, isFetching, forms == nil else { return [] }
        forms = loaded
        return decideAfterLoading()
    }

    private mutating func decideAfterLoading() -> [Effect] {
        guard let availability, let forms else { return [] }
        isFetching = false
        switch availability.status {
        case .open:
            if let form = forms.preChat {
                screen = .preChat(FormScreen(form: form))
                return []
            }
            isStarting = true
            return [.startConversation(preChatAnswers: [:])]
        case .closed(let nextOpening):
            screen = .unavailable(.closed(nextOpening: nextOpening), forms.unavailable.map { FormScreen(form: $0) })
        case .noAgentOnline:
            screen = .unavailable(.noAgentOnline, forms.unavailable.map { FormScreen(form: $0) })
        }
        return []
    }

    /// The visitor submitted the pre-chat form.
    public mutating func submitPreChat(_ answers: FormAnswers) -> [Effect] {
        guard case .preChat(let current) = screen, !current.isSubmitting else { return [] }
        return submit(answers, on: current, show: ChatScreen.preChat) { .startConversation(preChatAnswers: $0) }
    }

    /// The server queued the conversation (at a 1-based position, when known).
    public mutating func conversationQueued(position: Int?) -> [Effect] {
        guard isAwaitingConversation else { return [] }
        isStarting = false
        let estimate = availability?.estimatedWaitSeconds
        // The availability estimate was made for the place a newcomer would take: keep it per
        // place, so later positions are estimated without asking again.
        if let estimate, let place = position, place > 0 { secondsPerPlace = Double(estimate) / Double(place) }
        screen = .queued(position: position, estimatedWaitSeconds: estimate)
        return []
    }

    /// The queue position changed, or the estimate (nil: the server sent none, so the estimate
    /// moves with the position, at the seconds per place known so far).
    public mutating func queueUpdated(position: Int?, estimatedWaitSeconds: Int?) -> [Effect] {
        guard case .queued(let oldPosition, let oldEstimate) = screen else { return [] }
        let place = position ?? oldPosition
        if let estimatedWaitSeconds, let place, place > 0 { secondsPerPlace = Double(estimatedWaitSeconds) / Double(place) }
        let estimate = estimatedWaitSeconds ?? place.flatMap { place in secondsPerPlace.map { Int(($0 * Double(place)).rounded(.up)) } }
            ?? oldEstimate
        screen = .queued(position: place, estimatedWaitSeconds: estimate)
        return []
    }

    /// An agent took the conversation (possibly before the queued answer was seen).
    public mutating func conversationAssigned() -> [Effect] {
        if case .queued = screen {} else if !isAwaitingConversation { return [] }
        isStarting = false
        screen = .chatting
        return []
    }

    /// The visitor cancelled while queued: the conversation is cancelled and the unavailable form shown (BoldChat).
    public mutating func cancel() -> [Effect] {
        guard case .queued = screen else { return [] }
        screen = .unavailable(.cancelled, forms?.unavailable.map { FormScreen(form: $0) })
        return [.cancelConversation]
    }

    /// The visitor asked to end the chat; the screen changes when ``conversationEnded()`` follows.
    public mutating func endChat() -> [Effect] {
        guard case .chatting = screen else { return [] }
        return [.endConversation]
    }

    /// The conversation ended (by either side).
    public mutating func conversationEnded() -> [Effect] {
        switch screen {
        case .queued, .chatting:
            screen = forms?.postChat.map { .postChat(FormScreen(form: $0)) } ?? .ended
        default:
            break
        }
        return []
    }

    /// The visitor submitted the post-chat form (the rating).
    public mutating func submitPostChat(_ answers: FormAnswers) -> [Effect] {
        guard case .postChat(let current) = screen, !current.isSubmitting else { return [] }
        return submit(answers, on: current, show: ChatScreen.postChat) { .submitPostChat($0) }
    }

    /// The visitor skipped the post-chat form.
    public mutating func skipPostChat() -> [Effect] {
        guard case .postChat(let current) = screen, !current.isSubmitting else { return [] }
        screen = .ended
        return []
    }

    /// The visitor submitted the unavailable form.
    public mutating func submitOfflineForm(_ answers: FormAnswers) -> [Effect] {
        guard case .unavailable(let reason, let current?) = screen, !current.isSubmitting else { return [] }
        return submit(answers, on: current, show: { .unavailable(reason, $0) }) { .submitOfflineForm($0) }
    }

    /// The server accepted the submission under way (offline form or post-chat form; a pre-chat
    /// submission is accepted by ``conversationQueued(position:)`` or ``conversationAssigned()``).
    public mutating func submissionAccepted() -> [Effect] {
        switch screen {
        case .unavailable(_, let form?) where form.isSubmitting: screen = .offlineSubmitted
        case .postChat(let form) where form.isSubmitting: screen = .ended
        default: break
        }
        return []
    }

    /// The server refused the submission under way with field errors: show them on the form.
    public mutating func submissionRejected(_ errors: FormValidationErrors) -> [Effect] {
        guard let form = submittingForm else { return [] }
        updateForm(FormScreen(form: form.form, errors: errors))
        return []
    }

    /// Something failed. While a form is being sent and the error is recoverable, the form stays with
    /// the failure shown so the visitor can resend; otherwise the error screen shows.
    public mutating func failed(_ error: ParleyError) -> [Effect] {
        switch screen {
        case .ended, .offlineSubmitted, .error: return []
        default: break
        }
        if let form = submittingForm, !error.isFatal {
            updateForm(FormScreen(form: form.form, failure: error))
            return []
        }
        isFetching = false
        isStarting = false
        screen = .error(error)
        return []
    }

    /// The visitor asked to try again after a recoverable error: start over from loading.
    public mutating func retry() -> [Effect] {
        guard case .error(let error) = screen, !error.isFatal else { return [] }
        screen = .loading
        availability = nil
        forms = nil
        isFetching = true
        return [.fetchAvailability, .fetchForms]
    }

    private var isAwaitingConversation: Bool {
        switch screen {
        case .loading: isStarting
        case .preChat(let form): form.isSubmitting
        default: false
        }
    }

    private var submittingForm: FormScreen? {
        switch screen {
        case .preChat(let form) where form.isSubmitting: form
        case .postChat(let form) where form.isSubmitting: form
        case .unavailable(_, let form?) where form.isSubmitting: form
        default: nil
        }
    }

    private mutating func updateForm(_ form: FormScreen) {
        switch screen {
        case .preChat: screen = .preChat(form)
        case .postChat: screen = .postChat(form)
        case .unavailable(let reason, _): screen = .unavailable(reason, form)
        default: break
        }
    }

    private mutating func submit(
        _ answers: FormAnswers, on current: FormScreen, show: (FormScreen) -> ChatScreen,
        effect: ([String: FormValue]) -> Effect
    ) -> [Effect] {
        switch current.form.validate(answers) {
        case .failure(let errors):
            screen = show(FormScreen(form: current.form, errors: errors))
            return []
        case .success(let values):
            screen = show(FormScreen(form: current.form, isSubmitting: true))
            return [effect(values)]
        }
    }
}
