import Foundation

/// What a push tells the visitor's device: why it came, about which conversation, and what the
/// notification shows. The server sends it in the clear (`"parley": {…}` beside APNs' `aps`, or in
/// FCM's data) or, in encrypted mode, sealed to the device's key (``PushEnvelope/encrypted``) so
/// Apple and Google see only the conversation id.
///
/// `{"badge":2,"body":"Your parcel left the depot","conversation_id":"cnv_…","kind":"message","seq":14,"title":"Grace"}`
public struct PushContent: Hashable, Sendable, Codable {
    /// Why the push was sent.
    public enum Kind: String, Hashable, Sendable, Codable {
        /// An agent wrote.
        case message
        /// An agent pushed a page.
        case page
        /// The conversation ended.
        case ended
        /// The conversation went to another agent or queue.
        case transferred
        /// An agent is ready for the visitor's callback request: the app fetches the dialog
        /// (``PushContent/callbackID`` and ``PushContent/callbackAction``) and asks the visitor to confirm.
        case callbackOffered = "callback_offered"
    }

    public var kind: Kind
    public var conversationID: ConversationID
    /// The seq of the event it is about: the app opens the conversation there.
    public var seq: Int64?
    /// The notification's title: the agent's name, or the app's title.
    public var title: String
    /// A preview of the text, or nil when the app sends no previews.
    public var body: String?
    /// The visitor's unread count across conversations, for the app icon.
    public var badge: Int?
    /// For a callback request: its id (Genesys' service id).
    public var callbackID: CallbackID?
    /// For a callback request: the action to POST (`/v1/callbacks/{id}/actions/{action}`) for the dialog to show.
    public var callbackAction: CallbackAction?

    public init(kind: Kind, conversationID: ConversationID, seq: Int64? = nil, title: String, body: String? = nil, badge: Int? = nil,
                callbackID: CallbackID? = nil, callbackAction: CallbackAction? = nil) {
        self.callbackID = callbackID
        self.callbackAction = callbackAction
        self.kind = kind
        self.conversationID = conversationID
        self.seq = seq
        self.title = title
        self.body = body
        self.badge = badge
    }

    enum CodingKeys: String, CodingKey {
        case kind, conversationID = "conversation_id", seq, title, body, badge, callbackID = "callback_id", callbackAction = "callback_action"
    }
}

/// The `parley` member of a push's payload: always the conversation (for the deep link, even
/// encrypted) and either the content in the clear or sealed to the device.
///
/// `{"conversation_id":"cnv_…","enc":"DGv6ra1n…","v":1}` (encrypted) or
/// `{"content":{…},"conversation_id":"cnv_…","v":1}`.
public struct PushEnvelope: Hashable, Sendable, Codable {
    /// The payload's version: 1.
    public var version: Int
    public var conversationID: ConversationID
    /// The content, when the push is not encrypted.
    public var content: PushContent?
    /// ``PushContent``'s JSON sealed to the device (`aes128gcm`, base64url), when it is.
    public var encrypted: String?

    public init(conversationID: ConversationID, content: PushContent? = nil, encrypted: String? = nil) {
        self.version = 1
        self.conversationID = conversationID
        self.content = content
        self.encrypted = encrypted
    }

    enum CodingKeys: String, CodingKey { case version = "v", conversationID = "conversation_id", content, encrypted = "enc" }
}
