import Foundation

/// What the visitor's app shows for a callback request: a typed dialog the app renders natively
/// (the answer of `POST /v1/callbacks/{id}/actions/{action}`, and what a push or a realtime event
/// leads to). Genesys Mobile Services calls these dialogs; ``GenesysDialog`` writes them in its form.
public struct CallbackDialog: Hashable, Sendable, Codable {
    /// What to show.
    public enum Content: Hashable, Sendable {
        /// Choices, in groups ("Are you ready?": yes / in 5 minutes / cancel).
        case menu(label: String, groups: [MenuGroup])
        /// A message with one button.
        case confirmation(text: String, okTitle: String)
        /// Call this number and give this code (*I will call*).
        case dialNumber(label: String, telURL: String, accessCode: String)
        /// Open the chat with the agent who is ready (*notify me and chat*).
        case startChat(label: String, conversationID: ConversationID, subject: String?)
    }

    /// One group of a menu.
    public struct MenuGroup: Hashable, Sendable, Codable {
        public var name: String
        public var items: [MenuItem]
        public init(name: String, items: [MenuItem]) {
            self.name = name
            self.items = items
        }
    }

    /// One choice: the action it performs, and a note shown after it is chosen.
    public struct MenuItem: Hashable, Sendable, Codable {
        public var label: String
        public var action: CallbackAction
        /// Shown once the action succeeded, closed by itself after `dismissAfter` seconds.
        public var confirmation: Note?
        public init(label: String, action: CallbackAction, confirmation: Note? = nil) {
            self.label = label
            self.action = action
            self.confirmation = confirmation
        }
    }

    /// A note shown after a choice.
    public struct Note: Hashable, Sendable, Codable {
        public var text: String
        public var dismissAfter: Int?
        public init(text: String, dismissAfter: Int? = nil) {
            self.text = text
            self.dismissAfter = dismissAfter
        }
        enum CodingKeys: String, CodingKey { case text, dismissAfter = "dismiss_after" }
    }

    public var callbackID: CallbackID
    public var content: Content
    /// When the dialog stops being true (an offer's end); nil when it does not expire.
    public var expiresAt: Date?
    /// Where to fetch it again: `/v1/callbacks/{id}/dialog`.
    public var refreshPath: String

    public init(callbackID: CallbackID, content: Content, expiresAt: Date? = nil) {
        self.callbackID = callbackID
        self.content = content
        self.expiresAt = expiresAt
        refreshPath = "/v1/callbacks/\(callbackID.rawValue)/dialog"
    }

    enum CodingKeys: String, CodingKey {
        case callbackID = "callback_id", kind, label, groups, text, okTitle = "ok_title", telURL = "tel_url", accessCode = "access_code"
        case conversationID = "conversation_id", subject, expiresAt = "expires_at", refreshPath = "refresh_path"
    }

    /// The dialog's kind on the wire.
    public enum Kind: String, Codable, Sendable { case menu, confirmation, dialNumber = "dial_number", startChat = "start_chat" }

    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        callbackID = try c.decode(CallbackID.self, forKey: .callbackID)
        expiresAt = try c.decodeIfPresent(Date.self, forKey: .expiresAt)
        refreshPath = try c.decode(String.self, forKey: .refreshPath)
        switch try c.decode(Kind.self, forKey: .kind) {
        case .menu: content = .menu(label: try c.decode(String.self, forKey: .label), groups: try c.decode([MenuGroup].self, forKey: .groups))
        case .confirmation: content = .confirmation(text: try c.decode(String.self, forKey: .text), okTitle: try c.decode(String.self, forKey: .okTitle))
        case .dialNumber:
            content = .dialNumber(label: try c.decode(String.self, forKey: .label), telURL: try c.decode(String.self, forKey: .telURL),
                                  accessCode: try c.decode(String.self, forKey: .accessCode))
        case .startChat:
            content = .startChat(label: try c.decode(String.self, forKey: .label), conversationID: try c.decode(ConversationID.self, forKey: .conversationID),
                                 subject: try c.decodeIfPresent(String.self, forKey: .subject))
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(callbackID, forKey: .callbackID)
        try c.encodeIfPresent(expiresAt, forKey: .expiresAt)
        try c.encode(refreshPath, forKey: .refreshPath)
        switch content {
        case .menu(let label, let groups):
            try c.encode(Kind.menu, forKey: .kind)
            try c.encode(label, forKey: .label)
            try c.encode(groups, forKey: .groups)
        case .confirmation(let text, let okTitle):
            try c.encode(Kind.confirmation, forKey: .kind)
            try c.encode(text, forKey: .text)
            try c.encode(okTitle, forKey: .okTitle)
        case .dialNumber(let label, let telURL, let accessCode):
            try c.encode(Kind.dialNumber, forKey: .kind)
            try c.encode(label, forKey: .label)
            try c.encode(telURL, forKey: .telURL)
            try c.encode(accessCode, forKey: .accessCode)
        case .startChat(let label, let conversationID, let subject):
            try c.encode(Kind.startChat, forKey: .kind)
            try c.encode(label, forKey: .label)
            try c.encode(conversationID, forKey: .conversationID)
            try c.encodeIfPresent(subject, forKey: .subject)
        }
    }
}

/// What the visitor can do with a request (the `{action}` of `POST /v1/callbacks/{id}/actions/{action}`).
public enum CallbackAction: String, Hashable, Sendable, Codable, CaseIterable {
    /// "Yes, I'm ready".
    case confirm
    /// "No, try again in 5 minutes".
    case snooze
    /// "Cancel, my problem has been solved".
    case cancel
    /// Read the dialog for where the request stands now.
    case dialog
}
