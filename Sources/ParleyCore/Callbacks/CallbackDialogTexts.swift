import Foundation

/// The words of the callback dialogs, per language; an app's admins may replace any of them.
/// `{minutes}` in ``snoozeItem`` and ``snoozed`` is the snooze time.
public struct CallbackDialogTexts: Hashable, Sendable, Codable {
    public var offer = "An agent is available right now"
    public var readyGroup = "Are you ready?"
    public var readyItem = "Yes, I'm ready"
    public var snoozeItem = "No, try again in {minutes} minutes"
    public var cancelItem = "Cancel, my problem has been solved"
    /// After confirming *call me*.
    public var callingYou = "You will receive the call shortly."
    /// After confirming *I will call*, before the number.
    public var dialHint = "You will hear tones right after the call connects. This is normal."
    public var connecting = "Connecting …"
    public var startChat = "Start chat"
    public var waiting = "We will notify you when an agent is available."
    public var snoozed = "We will ask you again in {minutes} minutes."
    public var ended = "Your callback request is closed."
    public var ok = "OK"

    public init() {}

    /// The built-in words for a language tag (`de`, `de-AT` → German; anything else English).
    public static func standard(for locale: String?) -> CallbackDialogTexts {
        var texts = CallbackDialogTexts()
        guard locale?.lowercased().hasPrefix("de") == true else { return texts }
        texts.offer = "Eine Mitarbeiterin oder ein Mitarbeiter ist jetzt für Sie da"
        texts.readyGroup = "Sind Sie bereit?"
        texts.readyItem = "Ja, ich bin bereit"
        texts.snoozeItem = "Nein, in {minutes} Minuten noch einmal"
        texts.cancelItem = "Abbrechen, mein Anliegen ist erledigt"
        texts.callingYou = "Sie werden gleich angerufen."
        texts.dialHint = "Nach dem Verbinden hören Sie Töne. Das ist normal."
        texts.connecting = "Verbinden …"
        texts.startChat = "Chat beginnen"
        texts.waiting = "Wir melden uns, sobald jemand für Sie da ist."
        texts.snoozed = "Wir fragen Sie in {minutes} Minuten noch einmal."
        texts.ended = "Ihre Rückrufanfrage ist abgeschlossen."
        return texts
    }

    /// The keys of the texts, as the wire and ``CallbackTextOverrides`` name them.
    public static let keys: Set<String> = Set(CodingKeys.allCases.map(\.stringValue))

    /// Replaces the texts named in `replacements` (by ``keys``); unknown keys change nothing.
    public mutating func replace(with replacements: [String: String]) {
        for (key, text) in replacements {
            switch CodingKeys(stringValue: key) {
            case .offer: offer = text
            case .readyGroup: readyGroup = text
            case .readyItem: readyItem = text
            case .snoozeItem: snoozeItem = text
            case .cancelItem: cancelItem = text
            case .callingYou: callingYou = text
            case .dialHint: dialHint = text
            case .connecting: connecting = text
            case .startChat: startChat = text
            case .waiting: waiting = text
            case .snoozed: snoozed = text
            case .ended: ended = text
            case .ok: ok = text
            case nil: break
            }
        }
    }

    /// A text with `{minutes}` filled in.
    static func filling(_ text: String, minutes: Int) -> String {
        text.replacingOccurrences(of: "{minutes}", with: String(minutes))
    }

    enum CodingKeys: String, CodingKey, CaseIterable {
        case offer, readyGroup = "ready_group", readyItem = "ready_item", snoozeItem = "snooze_item", cancelItem = "cancel_item"
        case callingYou = "calling_you", dialHint = "dial_hint", connecting, startChat = "start_chat", waiting, snoozed, ended, ok
    }
}

/// A callback request as the dialogs need it.
public struct CallbackSnapshot: Hashable, Sendable {
    public var id: CallbackID
    public var kind: CallbackKind
    public var state: CallbackMachine.State
    /// *Notify me and chat*: the conversation with the agent, once there is one.
    public var conversationID: ConversationID?
    public var subject: String?
    /// *I will call*: the number to dial (E.164) and the code that names the request.
    public var dialNumber: String?
    public var accessCode: String?

    public init(id: CallbackID, kind: CallbackKind, state: CallbackMachine.State, conversationID: ConversationID? = nil, subject: String? = nil,
                dialNumber: String? = nil, accessCode: String? = nil) {
        self.id = id
        self.kind = kind
        self.state = state
        self.conversationID = conversationID
        self.subject = subject
        self.dialNumber = dialNumber
        self.accessCode = accessCode
    }
}

/// Which dialog a request shows where it stands: a pure function of the request and the words.
public enum CallbackDialogs {
    /// The dialog for `request`.
    /// - Parameters:
    ///   - request: the callback request, where it stands.
    ///   - texts: the app's words in the visitor's language.
    ///   - snoozeMinutes: how long "try again later" waits.
    ///   - confirmationDismissAfter: seconds a note after a choice stays (Genesys' `_dismiss_timeout`).
    public static func dialog(for request: CallbackSnapshot, texts: CallbackDialogTexts, snoozeMinutes: Int,
                              confirmationDismissAfter: Int = 2) -> CallbackDialog {
        switch request.state {
        case .waiting:
            return CallbackDialog(callbackID: request.id, content: .confirmation(text: texts.waiting, okTitle: texts.ok))
        case .scheduled:
            return CallbackDialog(callbackID: request.id, content: .confirmation(
                text: CallbackDialogTexts.filling(texts.snoozed, minutes: snoozeMinutes), okTitle: texts.ok))
        case .offered(_, let expiresAt):
            let note: CallbackDialog.Note? = switch request.kind {
            case .callMe: .init(text: texts.callingYou, dismissAfter: confirmationDismissAfter)
            case .iWillCall: .init(text: texts.dialHint, dismissAfter: confirmationDismissAfter)
            case .notifyAndChat: nil
            }
            let items = [
                CallbackDialog.MenuItem(label: texts.readyItem, action: .confirm, confirmation: note),
                CallbackDialog.MenuItem(label: CallbackDialogTexts.filling(texts.snoozeItem, minutes: snoozeMinutes), action: .snooze),
                CallbackDialog.MenuItem(label: texts.cancelItem, action: .cancel),
            ]
            return CallbackDialog(callbackID: request.id, content: .menu(label: texts.offer, groups: [.init(name: texts.readyGroup, items: items)]),
                                  expiresAt: expiresAt)
        case .connecting:
            switch request.kind {
            case .callMe:
                return CallbackDialog(callbackID: request.id, content: .confirmation(text: texts.callingYou, okTitle: texts.ok))
            case .iWillCall:
                return CallbackDialog(callbackID: request.id, content: .dialNumber(
                    label: texts.connecting, telURL: "tel:" + (request.dialNumber ?? ""), accessCode: request.accessCode ?? ""))
            case .notifyAndChat:
                guard let conversation = request.conversationID else {
                    return CallbackDialog(callbackID: request.id, content: .confirmation(text: texts.connecting, okTitle: texts.ok))
                }
                return CallbackDialog(callbackID: request.id, content: .startChat(label: texts.startChat, conversationID: conversation,
                                                                                 subject: request.subject))
            }
        case .ended:
            return CallbackDialog(callbackID: request.id, content: .confirmation(text: texts.ended, okTitle: texts.ok))
        }
    }
}
