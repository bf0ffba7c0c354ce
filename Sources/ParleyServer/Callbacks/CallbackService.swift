import Foundation
import HTTPTypes
import Logging
import ParleyCore
import ParleyStore

/// Callback requests (decision 0019): a visitor asks to be helped when an agent is free; the
/// request is a conversation (so routing, positions, events, resume, isolation and webhooks are the
/// conversation's), and each step goes through the committer like any other change.
struct CallbackService: Sendable {
    let conversations: ConversationService
    let committer: ConversationCommitter
    let settings: AppSettings
    let clock: any WallClock
    let logger: Logger

    /// How far ahead a window may start.
    static let maxWindowAhead: TimeInterval = 30 * 86_400
    /// How long a window may last.
    static let maxWindowLength: TimeInterval = 86_400

    // MARK: Visitors

    /// Checks and stores a request, waiting in its queue, or scheduled into its window or into the
    /// queue's next opening when it is closed now.
    /// - Throws: 400 for bad input (a phone number that cannot be called, a window outside the
    ///   queue's hours), 404 for an unknown queue, 409 when the queue takes no such request.
    func request(_ request: RequestCallbackRequest, by visitor: VisitorCaller) async throws -> CallbackView {
        let queue = try await conversations.queue(request.queueID, app: visitor.appID)
        let queueSettings = try await settings.callbackSettings(queue: queue.id, app: visitor.appID)
        guard queueSettings.enabled else { throw APIError.conflict("callbacks_disabled", "this queue takes no callback requests") }
        let now = clock.now()

        var phone: String?
        switch request.kind {
        case .callMe:
            guard let typed = request.phone, !typed.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw APIError.badRequest("phone: required for call_me")
            }
            if let code = request.defaultCallingCode, !(1...3).contains(code.count) || !code.allSatisfy(\.isASCII) || !code.allSatisfy(\.isNumber) {
                throw APIError.badRequest("default_calling_code: 1 to 3 digits, such as 49")
            }
            guard let number = PhoneNumber.normalize(typed, defaultCallingCode: request.defaultCallingCode) else {
                throw APIError(status: .badRequest, code: "invalid_phone", message: "phone: not a number that can be called; write it as +4930901820")
            }
            phone = number
        case .iWillCall, .notifyAndChat:
            guard request.phone == nil else { throw APIError.badRequest("phone: only a call_me request has one") }
        }
        var dialNumber: String?
        var accessCode: String?
        if request.kind == .iWillCall {
            guard let number = queueSettings.dialNumber else {
                throw APIError.conflict("no_dial_number", "this queue has no number to call; ask for call_me or notify_and_chat")
            }
            dialNumber = number
            accessCode = Self.accessCode()
        }
        if let language = request.language, !LocalizedText.isWellFormedTag(language) {
            throw APIError.badRequest("language: a language tag such as en or pt-BR")
        }

        let hours = try await settings.hours(queue: queue.id, app: visitor.appID)
        let scheduledUntil = try Self.start(windowStart: request.windowStart, windowEnd: request.windowEnd, hours: hours, now: now)
        let callback = Callback(
            id: CallbackID(rawValue: ""),  // set from the conversation's id when it opens
            kind: request.kind, phone: phone, windowStart: request.windowStart, windowEnd: request.windowEnd, dialNumber: dialNumber,
            accessCode: accessCode, language: request.language, scheduledUntil: scheduledUntil, offerSeconds: queueSettings.offerSeconds,
            snoozeMinutes: queueSettings.snoozeMinutes, onExpiry: queueSettings.onExpiry)
        let opening = OpenConversationRequest(
            queueID: queue.id, subject: request.subject, attributes: request.attributes, formAnswers: request.formAnswers)
        let conversation = try await conversations.open(opening, by: visitor, callback: callback)
        logger.debug("callback requested", metadata: ["parley.conversation": "\(conversation.id)", "parley.callback": "\(request.kind.rawValue)"])
        return try await view(of: conversation)
    }

    /// When a new request first waits: nil for now, else the start of its window or the queue's
    /// next opening.
    /// - Throws: 400 for a window that is not one (ends before it starts, in the past, too far
    ///   ahead, too long) or that starts while the queue is closed; 409 `closed` for a queue that
    ///   does not open within a year.
    static func start(windowStart: Date?, windowEnd: Date?, hours: BusinessHours?, now: Date) throws -> Date? {
        if let start = windowStart {
            guard start >= now.addingTimeInterval(-60) else { throw APIError.badRequest("window_start: in the past") }
            guard start <= now.addingTimeInterval(maxWindowAhead) else { throw APIError.badRequest("window_start: at most 30 days ahead") }
            if let end = windowEnd {
                guard end > start else { throw APIError.badRequest("window_end: after window_start") }
                guard end.timeIntervalSince(start) <= maxWindowLength else { throw APIError.badRequest("window_end: at most a day after window_start") }
            }
            if let hours, case .closed = hours.status(at: max(start, now)) {
                throw APIError(status: .badRequest, code: "outside_hours", message: "window_start: the queue is closed then; choose a time in its business hours")
            }
            return start > now ? start : nil
        }
        guard windowEnd == nil else { throw APIError.badRequest("window_end: only with window_start") }
        guard let hours, case .closed(let next) = hours.status(at: now) else { return nil }
        guard let next else { throw APIError.conflict("closed", "the queue does not open within a year") }
        return next
    }

    /// Six random digits: what the visitor keys in when their call connects. Only a request that
    /// is connecting shows it, and agents match it beside the number called.
    static func accessCode() -> String {
        String(format: "%06d", Int.random(in: 0..<1_000_000))
    }

    /// The request, its conversation and the dialog to show now.
    /// - Throws: 404 unless it is a callback request of the visitor.
    func view(_ id: CallbackID, by visitor: VisitorCaller) async throws -> CallbackView {
        let conversation = try await conversations.visible(id.conversationID, to: .visitor(visitor))
        return try await view(of: conversation)
    }

    /// Applies the visitor's choice (``CallbackAction``) and answers the dialog for where the
    /// request stands afterwards; `dialog` changes nothing.
    /// - Throws: 404 unless it is a callback request of the visitor; 409 `invalid_state` when the
    ///   choice does not fit (confirming an offer that expired, anything once it ended).
    func perform(_ action: CallbackAction, on id: CallbackID, by visitor: VisitorCaller) async throws -> CallbackDialog {
        let current = try await view(id, by: visitor)
        let step: ConversationChange.CallbackUpdate.Step
        switch action {
        case .dialog: return current.dialog
        case .confirm: step = .confirm
        case .snooze: step = .snooze
        case .cancel: step = .cancel
        }
        let commit = try await committer.commit(.callback(.init(
            conversationID: id.conversationID, appID: visitor.appID, by: Caller.visitor(visitor).participant, step: step, at: clock.now())))
        return try await dialog(for: commit.conversation)
    }

    // MARK: Agents

    /// The agent connecting with a request records how it went: done, or tried again at `retry_at`.
    /// - Throws: 404 for a conversation of another app, 409 when it is no request this agent is connecting with.
    func recordOutcome(_ request: CallbackOutcomeRequest, conversation id: ConversationID, by agent: AgentCaller) async throws -> Conversation {
        let conversation = try await conversations.visible(id, to: .agent(agent))
        guard conversation.callback != nil else { throw APIError.conflict("not_a_callback", "this conversation is not a callback request") }
        let commit = try await committer.commit(.callback(.init(
            conversationID: id, appID: agent.appID, by: Caller.agent(agent).participant,
            step: .outcome(request.outcome, retryAt: request.retryAt), at: clock.now())))
        return try await conversations.visible(commit.conversation.id, to: .agent(agent))
    }

    // MARK: Dialogs

    private func view(of conversation: Conversation) async throws -> CallbackView {
        guard let callback = conversation.callback else { throw APIError.notFound("callback request not found") }
        return CallbackView(callback: callback, conversation: conversation, dialog: try await dialog(for: conversation))
    }

    /// The dialog for where the conversation's request stands, in the request's language and the app's words.
    func dialog(for conversation: Conversation) async throws -> CallbackDialog {
        guard let callback = conversation.callback else { throw APIError.notFound("callback request not found") }
        let texts = try await settings.callbackTexts(app: conversation.appID).texts(for: callback.language)
        let snapshot = CallbackSnapshot(
            id: callback.id, kind: callback.kind, state: callback.state, conversationID: conversation.id, subject: conversation.subject,
            dialNumber: callback.dialNumber, accessCode: callback.accessCode)
        return CallbackDialogs.dialog(for: snapshot, texts: texts, snoozeMinutes: callback.snoozeMinutes)
    }
}
