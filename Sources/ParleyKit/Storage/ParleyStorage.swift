import Foundation
import ParleyCore

/// Where ParleyKit keeps what must survive the app being killed: the secrets, the outbox and the
/// conversations' history.
///
/// Every change is stored on its own, so its cost follows the change, not what is stored: a received
/// event appends that event, an accepted message appends that message, an acknowledgement removes
/// it. The client calls a storage from one task at a time. At ``ParleyClient/start()`` it reads
/// ``loadSecrets()``, ``loadOutbox()`` and ``loadHistoryIndex()`` (each conversation's summary and
/// last seq, not its events); a conversation's events are read with ``loadEvents(of:)`` when they
/// are needed (its ``ConversationModel`` is opened).
///
/// ``loadHistoryIndex()`` and ``loadEvents(of:)`` have default implementations built on
/// ``loadHistory()``, so a storage written for earlier versions keeps working (it reads everything
/// at start, as before); implement them to make starts cost the list, not the history. So do
/// ``loadMaskingRules()`` and ``saveMaskingRules(_:)`` (keeping nothing): implement them so that a
/// text written offline right after a start is masked by the app's own rules, not only the built-in ones.
///
/// Secrets (the device id and the session token) are kept apart from history, so a Keychain
/// implementation can replace them. ParleyKit ships ``FileStorage`` (the default, journals in a
/// directory) and ``MemoryStorage`` (nothing on disk, for tests and previews).
///
/// Every method throws when the storage cannot be read or written; ParleyKit's own storages throw
/// ``ParleyError`` (`storage`). A failed outbox write fails the ``ParleyClient/send(_:in:)`` that
/// made it; a failed history write is logged and the history is fetched again from the server.
public protocol ParleyStorage: Sendable {
    // MARK: Secrets

    /// The stored secrets, or nil on first use.
    /// - Throws: when they cannot be read.
    func loadSecrets() throws -> StoredSecrets?
    /// Replaces the stored secrets.
    /// - Throws: when they cannot be written.
    func saveSecrets(_ secrets: StoredSecrets) throws

    // MARK: Outbox

    /// The stored outbox: messages handed to `send` and not yet acknowledged, in the order they
    /// were appended (an update keeps a message's place). Empty when nothing was stored.
    /// - Throws: when the outbox cannot be read.
    func loadOutbox() throws -> [OutboxItem]
    /// Adds a message at the end of the outbox. Called before `send` returns, so the message must
    /// be stored durably when this returns: it has to survive the app being killed right after.
    /// - Throws: when it cannot be written; `send` then fails.
    func appendOutbox(_ item: OutboxItem) throws
    /// Replaces the stored message that has the same client message id, keeping its place (it was
    /// marked failed, or is retried). Does nothing when there is none.
    /// - Throws: when it cannot be written.
    func updateOutbox(_ item: OutboxItem) throws
    /// Removes a message from the outbox (the server acknowledged it, or the app discarded it).
    /// Does nothing when there is none.
    /// - Throws: when it cannot be written.
    func removeOutbox(clientMessageID: String) throws

    // MARK: History

    /// The stored history: the epoch, the conversations' summaries and each conversation's events
    /// in seq order. Empty when nothing was stored.
    /// - Throws: when the history cannot be read.
    func loadHistory() throws -> StoredHistory
    /// What a start needs without the events: the epoch and, for each conversation, its summary,
    /// the seq of its newest stored event, how many are stored and its unread messages. A storage
    /// that had to read the events anyway may hand them over in ``StoredHistoryIndex/events``.
    /// Default: derived from ``loadHistory()``, with every conversation's events handed over.
    /// - Throws: when the history cannot be read.
    func loadHistoryIndex() throws -> StoredHistoryIndex
    /// One conversation's stored events, in seq order (empty when none are stored).
    /// Default: `loadHistory().events[conversation]`.
    /// - Throws: when they cannot be read.
    func loadEvents(of conversation: ConversationID) throws -> [ConversationEvent]
    /// Appends events, in seq order, after a conversation's stored ones. An event whose seq is not
    /// above the last stored one of its conversation is ignored (a replay overlap).
    /// - Throws: when they cannot be written.
    func appendEvents(_ events: [ConversationEvent], to conversation: ConversationID) throws
    /// Stores a conversation's summary, replacing the one stored for its id.
    /// - Throws: when it cannot be written.
    func saveConversation(_ conversation: Conversation) throws
    /// Records the store epoch the stored seqs belong to, keeping the events (the first connection
    /// told it, or it is unchanged).
    /// - Throws: when it cannot be written.
    func saveEpoch(_ epoch: String) throws
    /// Forgets one conversation's events (the server answered `reset`: its full replay follows).
    /// Its summary and the other conversations stay.
    /// - Throws: when it cannot be written.
    func resetEvents(of conversation: ConversationID) throws
    /// Forgets every stored event and records a new epoch: the server is another database, where
    /// the seqs held mean nothing. Conversation summaries stay.
    /// - Throws: when it cannot be written.
    func resetHistory(epoch: String?) throws

    // MARK: Masking rules

    /// The app's masking rules as last read from the server, or nil when none were kept.
    /// Default: nil (the client applies the built-in rules until it has read the app's).
    /// - Throws: when they cannot be read.
    func loadMaskingRules() throws -> MaskingRules?
    /// Keeps the app's masking rules, replacing the ones kept. Default: keeps nothing.
    /// - Throws: when they cannot be written.
    func saveMaskingRules(_ rules: MaskingRules) throws
}

/// The device id and the visitor session.
public struct StoredSecrets: Codable, Sendable, Hashable {
    /// Made once per install; the same device id is the same visitor.
    public var deviceID: String
    /// The visitor token from the last session.
    public var token: String?
    /// When that token expires.
    public var tokenExpiresAt: Date?
    /// The visitor the server bound to this device.
    public var visitorID: VisitorID?
    /// The verified user the token belongs to; nil for an anonymous visitor. A token is used again
    /// only by the identity it was issued to.
    public var userID: String?
    /// This install's keys for encrypted pushes (``PushKeys/rawRepresentation``), made on first
    /// use; nil until then.
    public var pushKeys: Data?

    /// Secrets for a device.
    public init(deviceID: String, token: String? = nil, tokenExpiresAt: Date? = nil, visitorID: VisitorID? = nil, userID: String? = nil) {
        self.deviceID = deviceID
        self.token = token
        self.tokenExpiresAt = tokenExpiresAt
        self.visitorID = visitorID
        self.userID = userID
    }
}

/// A file waiting in the outbox: a copy the client keeps until the server has it, so that an app
/// killed mid-upload sends it when it next starts.
public struct OutgoingFile: Codable, Sendable, Hashable {
    /// The copy's file name in the storage's `outbox-files` folder.
    public var storedName: String
    /// The name sent with it.
    public var name: String
    /// Its size in bytes.
    public var size: Int64
    /// Its type as the device decided it from its bytes (the server decides again).
    public var contentType: String

    /// A file of the outbox.
    /// - Parameters:
    ///   - storedName: the copy's name in the outbox folder.
    ///   - name: the name sent with it.
    ///   - size: its size in bytes.
    ///   - contentType: its type, decided from its bytes.
    public init(storedName: String, name: String, size: Int64, contentType: String) {
        self.storedName = storedName
        self.name = name
        self.size = size
        self.contentType = contentType
    }
}

/// A message accepted by `send` and not yet acknowledged by the server.
public struct OutboxItem: Codable, Sendable, Hashable {
    /// The id `send` gave the message; the server's idempotency key.
    public var clientMessageID: String
    /// The conversation it goes to.
    public var conversationID: ConversationID
    /// The text.
    public var text: String
    /// When `send` accepted it.
    public var createdAt: Date
    /// Set when the server refused the message for good (too long, conversation gone…).
    public var failure: String?
    /// The file the message sends (then `text` is its caption); nil for a text message.
    public var file: OutgoingFile?

    /// An outbox entry.
    public init(clientMessageID: String, conversationID: ConversationID, text: String, createdAt: Date, failure: String? = nil, file: OutgoingFile? = nil) {
        self.file = file
        self.clientMessageID = clientMessageID
        self.conversationID = conversationID
        self.text = text
        self.createdAt = createdAt
        self.failure = failure
    }
}

/// The events known of each conversation, and the store epoch their seqs belong to.
public struct StoredHistory: Codable, Sendable, Hashable {
    /// The store epoch the seqs belong to.
    public var epoch: String?
    /// The last known summary of each conversation.
    public var conversations: [ConversationID: Conversation]
    /// The events of each conversation, in seq order.
    public var events: [ConversationID: [ConversationEvent]]

    /// A history value.
    public init(epoch: String? = nil, conversations: [ConversationID: Conversation] = [:], events: [ConversationID: [ConversationEvent]] = [:]) {
        self.epoch = epoch
        self.conversations = conversations
        self.events = events
    }
}
