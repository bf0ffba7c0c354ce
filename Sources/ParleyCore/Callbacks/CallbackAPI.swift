import Foundation

/// `POST /v1/callbacks`: a visitor asks to be helped when an agent is free.
public struct RequestCallbackRequest: Hashable, Sendable, Codable {
    /// The queue; nil picks the app's first queue.
    public var queueID: QueueID?
    public var kind: CallbackKind
    /// *Call me*: the number to call, as typed (normalised to E.164 with ``defaultCallingCode``).
    public var phone: String?
    /// Digits such as `49`, for a ``phone`` written without `+` or `00`.
    public var defaultCallingCode: String?
    /// The earliest moment to be helped; nil for as soon as possible. Must fall in the queue's hours.
    public var windowStart: Date?
    /// The latest moment; after ``windowStart``.
    public var windowEnd: Date?
    public var subject: String?
    public var attributes: [String: String]?
    /// Answers to the queue's pre-chat form.
    public var formAnswers: FormAnswers?
    /// The visitor's language for dialogs and pushes (`de`, `en-GB`).
    public var language: String?

    /// Creates a request.
    public init(queueID: QueueID? = nil, kind: CallbackKind, phone: String? = nil, defaultCallingCode: String? = nil,
                windowStart: Date? = nil, windowEnd: Date? = nil, subject: String? = nil, attributes: [String: String]? = nil,
                formAnswers: FormAnswers? = nil, language: String? = nil) {
        self.queueID = queueID
        self.kind = kind
        self.phone = phone
        self.defaultCallingCode = defaultCallingCode
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.subject = subject
        self.attributes = attributes
        self.formAnswers = formAnswers
        self.language = language
    }

    enum CodingKeys: String, CodingKey {
        case queueID = "queue_id", kind, phone, defaultCallingCode = "default_calling_code", windowStart = "window_start"
        case windowEnd = "window_end", subject, attributes, formAnswers = "form_answers", language
    }
}

/// A callback request as its visitor sees it: the request, its conversation (with the queue
/// position while it waits) and the dialog to show now.
public struct CallbackView: Hashable, Sendable, Codable {
    public var callback: Callback
    public var conversation: Conversation
    public var dialog: CallbackDialog

    /// Creates the view.
    public init(callback: Callback, conversation: Conversation, dialog: CallbackDialog) {
        self.callback = callback
        self.conversation = conversation
        self.dialog = dialog
    }
}

/// `POST /v1/conversations/{id}/callback/outcome`: the agent connecting with a request records how it went.
public struct CallbackOutcomeRequest: Hashable, Sendable, Codable {
    public var outcome: CallbackOutcome
    /// *No answer* or *wrong number* only: try again at this moment (the request is scheduled).
    public var retryAt: Date?

    /// Creates the request.
    public init(outcome: CallbackOutcome, retryAt: Date? = nil) {
        self.outcome = outcome
        self.retryAt = retryAt
    }

    enum CodingKeys: String, CodingKey { case outcome, retryAt = "retry_at" }
}

/// An app's own words for the callback dialogs: per language tag (`en`, `de`), the texts to use
/// instead of the built-in ones, by their key (`offer`, `ready_item`, … as in ``CallbackDialogTexts``).
public struct CallbackTextOverrides: Hashable, Sendable, Codable {
    public var languages: [String: [String: String]]

    /// Creates overrides.
    public init(languages: [String: [String: String]] = [:]) { self.languages = languages }

    /// The words for a language: the built-in ones with the app's replacements for its primary
    /// subtag, then for its whole tag (`de`, then `de-AT`), tags compared without case.
    public func texts(for language: String?) -> CallbackDialogTexts {
        var texts = CallbackDialogTexts.standard(for: language)
        // Tags compare without case (BCP 47): `de-AT` saved serves a visitor who sent `de-at`.
        let byTag = Dictionary(languages.map { ($0.key.lowercased(), $0.value) }, uniquingKeysWith: { first, _ in first })
        let tag = language?.lowercased()
        let primary = tag?.split(separator: "-").first.map(String.init)
        for candidate in [primary, tag].compactMap({ $0 }) {
            if let replacements = byTag[candidate] { texts.replace(with: replacements) }
        }
        return texts
    }

    /// The problems with these overrides, as `(field, message)`; empty when they are fine.
    public func problems() -> [(field: String, message: String)] {
        var problems: [(String, String)] = []
        for (language, texts) in languages.sorted(by: { $0.key < $1.key }) {
            if language.isEmpty || language.count > 35 || !language.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) {
                problems.append(("languages.\(language)", "is not a language tag"))
            }
            for (key, text) in texts.sorted(by: { $0.key < $1.key }) {
                if !CallbackDialogTexts.keys.contains(key) {
                    problems.append(("languages.\(language).\(key)", "is not a dialog text (one of \(CallbackDialogTexts.keys.sorted().joined(separator: ", ")))"))
                } else if text.trimmingWhitespace().isEmpty || text.count > 200 {
                    problems.append(("languages.\(language).\(key)", "must be 1 to 200 characters"))
                }
            }
        }
        return problems
    }
}
