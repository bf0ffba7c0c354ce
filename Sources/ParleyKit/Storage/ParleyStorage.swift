import Foundation
import ParleyCore

/// Where ParleyKit keeps what must survive the app being killed. Secrets (the device id and the
/// session token) are kept apart from history, so a Keychain implementation can replace them.
public protocol ParleyStorage: Sendable {
    /// The stored secrets, or nil on first use.
    func loadSecrets() throws -> StoredSecrets?
    /// Replaces the stored secrets.
    func saveSecrets(_ secrets: StoredSecrets) throws
    /// The stored outbox: messages handed to `send` and not yet acknowledged, in order.
    func loadOutbox() throws -> [OutboxItem]
    /// Replaces the stored outbox. Called before `send` returns, so an accepted message survives a kill.
    func saveOutbox(_ items: [OutboxItem]) throws
    /// The stored history: conversations, their events and the epoch they belong to.
    func loadHistory() throws -> StoredHistory
    /// Replaces the stored history.
    func saveHistory(_ history: StoredHistory) throws
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

    /// Secrets for a device.
    public init(deviceID: String, token: String? = nil, tokenExpiresAt: Date? = nil, visitorID: VisitorID? = nil) {
        self.deviceID = deviceID
        self.token = token
        self.tokenExpiresAt = tokenExpiresAt
        self.visitorID = visitorID
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

    /// An outbox entry.
    public init(clientMessageID: String, conversationID: ConversationID, text: String, createdAt: Date, failure: String? = nil) {
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

/// The default storage: JSON files in a directory. `secrets.json` is readable by the owner only;
/// every file is replaced atomically (write then rename), so a kill never leaves half a file.
public struct FileStorage: ParleyStorage {
    /// The directory holding the files.
    public let directory: URL

    /// Uses (and creates when missing) a directory.
    public init(directory: URL) {
        self.directory = directory
    }

    public func loadSecrets() throws -> StoredSecrets? { try read(StoredSecrets.self, "secrets.json") }
    public func saveSecrets(_ secrets: StoredSecrets) throws { try write(secrets, "secrets.json", ownerOnly: true) }
    public func loadOutbox() throws -> [OutboxItem] { try read([OutboxItem].self, "outbox.json") ?? [] }
    public func saveOutbox(_ items: [OutboxItem]) throws { try write(items, "outbox.json") }
    public func loadHistory() throws -> StoredHistory { try read(StoredHistory.self, "history.json") ?? StoredHistory() }
    public func saveHistory(_ history: StoredHistory) throws { try write(history, "history.json") }

    private func read<T: Decodable>(_ type: T.Type, _ name: String) throws -> T? {
        let url = directory.appendingPathComponent(name)
        guard let data = FileManager.default.contents(atPath: url.path) else { return nil }
        do {
            return try ParleyJSON.decode(type, from: data)
        } catch {
            throw ParleyError.storage("\(name) is unreadable: \(error)")
        }
    }

    private func write<T: Encodable>(_ value: T, _ name: String, ownerOnly: Bool = false) throws {
        do {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            let url = directory.appendingPathComponent(name)
            try ParleyJSON.encode(value).write(to: url, options: .atomic)
            if ownerOnly { try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: url.path) }
        } catch {
            throw ParleyError.storage("cannot write \(name): \(error)")
        }
    }
}
