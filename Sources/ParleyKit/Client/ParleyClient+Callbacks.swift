import Foundation
import ParleyCore

/// Callback requests (Genesys Mobile Services' callback): instead of waiting in a chat queue, the
/// visitor asks to be helped when an agent is free. The request is a conversation: its
/// ``ConversationModel`` shows the request (``ConversationModel/callback``) and its place in the
/// queue (``ConversationModel/queuePosition``) as they change, and its events arrive like a chat's.
/// When an agent is ready the app is told (a `callback` event with the action `offered`, or a
/// push whose content names the request) and shows the ``CallbackDialog`` it fetches with
/// ``dialog(for:)-(CallbackID)``; the visitor's choice goes back with ``perform(_:on:)``.
extension ParleyClient {
    /// What the visitor asks for and when.
    public struct CallbackWindow: Sendable, Hashable {
        /// The earliest moment to be helped (in the queue's business hours).
        public var start: Date
        /// The latest moment, shown to agents; nil for none.
        public var end: Date?
        /// A window from `start`, optionally until `end`.
        public init(start: Date, end: Date? = nil) {
            self.start = start
            self.end = end
        }
    }

    /// Asks for a callback.
    /// - Parameters:
    ///   - kind: `.callMe` (with `phone`), `.iWillCall` (the server gives a number and a code) or
    ///     `.notifyAndChat` (a chat with the agent who is ready).
    ///   - phone: `.callMe` only: the number as the visitor typed it.
    ///   - defaultCallingCode: digits such as `49`, for a number written without `+` or `00`.
    ///   - window: when to be helped; nil for as soon as possible. While the queue is closed, the
    ///     request waits for its next opening.
    ///   - queue: the queue (default: the configured queue, else the app's first).
    ///   - subject: one line agents see first.
    ///   - attributes: shown to agents, merged over the configured custom attributes.
    ///   - formAnswers: answers to the queue's pre-chat form.
    /// - Returns: the request, its conversation and the dialog to show now.
    /// - Throws: ``ParleyError``: a 400 `invalid_phone` or `outside_hours`, a 409 when the queue
    ///   takes no such request.
    public func requestCallback(
        _ kind: CallbackKind, phone: String? = nil, defaultCallingCode: String? = nil, window: CallbackWindow? = nil,
        queue: QueueID? = nil, subject: String? = nil, attributes: [String: String] = [:], formAnswers: FormAnswers? = nil
    ) async throws -> CallbackView {
        var merged = configuration.customAttributes.merging(attributes) { _, new in new }
        merged["locale"] = merged["locale"] ?? configuration.locale.identifier
        let request = RequestCallbackRequest(
            queueID: queue ?? configuration.defaultQueueID, kind: kind, phone: phone, defaultCallingCode: defaultCallingCode,
            windowStart: window?.start, windowEnd: window?.end, subject: try subject.map { try masker.masking($0, field: "subject") },
            attributes: try masker.masking(merged), formAnswers: try formAnswers.map { try masker.masking($0) },
            language: configuration.locale.language.languageCode?.identifier)
        let view = try await http.call(.callbacks.request, body: request, token: try await token(renew: false))
        await follow(view.conversation)
        return view
    }

    /// The request, its conversation and the dialog to show now.
    public func callback(_ id: CallbackID) async throws -> CallbackView {
        let view = try await http.call(.callbacks.get(id), token: try await token(renew: false))
        await follow(view.conversation)
        return view
    }

    /// The dialog to show now for a request (after a push, or to refresh an expired one).
    public func dialog(for id: CallbackID) async throws -> CallbackDialog {
        try await http.call(.callbacks.dialog(id), token: try await token(renew: false))
    }

    /// The dialog a push leads to, when it is about a callback request (nil otherwise).
    /// - Parameter content: what ``ParleyPush`` read from the notification.
    public func dialog(for content: PushContent) async throws -> CallbackDialog? {
        guard let id = content.callbackID else { return nil }
        return try await dialog(for: id)
    }

    /// The dialog an event leads to, when it is a callback request's change (nil otherwise): an
    /// `offered` event's menu, a confirmation's number or chat.
    /// - Parameter event: an event of a conversation (``ParleyEvent/event(_:)``).
    public func dialog(for event: ConversationEvent) async throws -> CallbackDialog? {
        guard case .callback(let change) = event.body else { return nil }
        return try await dialog(for: change.callback.id)
    }

    /// Does what the visitor chose: confirms, snoozes or cancels the request (`.dialog` changes
    /// nothing). Returns the dialog for where the request stands afterwards.
    /// - Throws: ``ParleyError``: a 409 when the choice no longer fits (the offer expired meanwhile:
    ///   fetch the dialog again).
    @discardableResult
    public func perform(_ action: CallbackAction, on id: CallbackID) async throws -> CallbackDialog {
        let dialog = try await http.call(.callbacks.perform(id, action), token: try await token(renew: false))
        if action != .dialog, let conversation = try? await http.call(.conversations.get(id.conversationID), token: try await token(renew: false)) {
            await follow(conversation)
        }
        return dialog
    }

    /// Does what a menu item says (``perform(_:on:)`` with its action).
    @discardableResult
    public func perform(_ item: CallbackDialog.MenuItem, of dialog: CallbackDialog) async throws -> CallbackDialog {
        try await perform(item.action, on: dialog.callbackID)
    }

    /// Keeps the request's conversation: remembered, subscribed, published.
    private func follow(_ conversation: Conversation) async {
        remember(conversation)
        snapshots[conversation.id]?.queuePosition = conversation.queuePosition
        await subscribe(conversation.id)
        await publish(conversation.id)
        await publishSummaries()
    }
}
