import Foundation
import ParleyCore

/// A storage that keeps everything in memory and nothing on disk: for tests, previews, and apps
/// that must leave no trace. Everything is lost with the instance; share one instance between
/// clients to model an app restart.
public final class MemoryStorage: ParleyStorage {
    private struct State {
        var secrets: StoredSecrets?
        var outbox: [OutboxItem] = []
        var history = StoredHistory()
        var maskingRules: MaskingRules?
    }

    private let state: Locked<State>

    /// An empty storage (the first start of an install), or one holding the given values.
    public init(secrets: StoredSecrets? = nil, outbox: [OutboxItem] = [], history: StoredHistory = StoredHistory(epoch: nil)) {
        state = Locked(State(secrets: secrets, outbox: outbox, history: history))
    }

    /// The stored secrets, or nil. Never throws.
    public func loadSecrets() throws -> StoredSecrets? { state.withLock { $0.secrets } }
    /// Replaces the secrets. Never throws.
    public func saveSecrets(_ secrets: StoredSecrets) throws { state.withLock { $0.secrets = secrets } }

    /// The outbox, in order. Never throws.
    public func loadOutbox() throws -> [OutboxItem] { state.withLock { $0.outbox } }
    /// Adds a message at the end of the outbox. Never throws.
    public func appendOutbox(_ item: OutboxItem) throws { state.withLock { $0.outbox.apply(.append(item)) } }
    /// Replaces the message with the same client message id, in its place. Never throws.
    public func updateOutbox(_ item: OutboxItem) throws { state.withLock { $0.outbox.apply(.update(item)) } }
    /// Removes a message. Never throws.
    public func removeOutbox(clientMessageID: String) throws { state.withLock { $0.outbox.apply(.remove(clientMessageID: clientMessageID)) } }

    /// The history. Never throws.
    public func loadHistory() throws -> StoredHistory { state.withLock { $0.history } }
    /// The summaries and each conversation's figures, folded from its events; the events stay here
    /// until ``loadEvents(of:)`` (as ``FileStorage`` does). Never throws.
    public func loadHistoryIndex() throws -> StoredHistoryIndex {
        state.withLock { StoredHistoryIndex(history: $0.history, handingOverEvents: false) }
    }
    /// One conversation's events. Never throws.
    public func loadEvents(of conversation: ConversationID) throws -> [ConversationEvent] {
        state.withLock { $0.history.events[conversation] ?? [] }
    }
    /// Appends events after a conversation's stored ones (overlaps ignored). Never throws.
    public func appendEvents(_ events: [ConversationEvent], to conversation: ConversationID) throws {
        state.withLock { $0.history.apply(.events(conversation, events)) }
    }
    /// Stores a conversation summary. Never throws.
    public func saveConversation(_ conversation: Conversation) throws { state.withLock { $0.history.apply(.conversation(conversation)) } }
    /// Records the epoch. Never throws.
    public func saveEpoch(_ epoch: String) throws { state.withLock { $0.history.apply(.epoch(epoch)) } }
    /// Forgets a conversation's events. Never throws.
    public func resetEvents(of conversation: ConversationID) throws { state.withLock { $0.history.apply(.resetEvents(conversation)) } }
    /// Forgets every event and records the epoch. Never throws.
    public func resetHistory(epoch: String?) throws { state.withLock { $0.history.apply(.resetHistory(epoch: epoch)) } }

    /// The masking rules kept, or nil. Never throws.
    public func loadMaskingRules() throws -> MaskingRules? { state.withLock { $0.maskingRules } }
    /// Keeps the masking rules. Never throws.
    public func saveMaskingRules(_ rules: MaskingRules) throws { state.withLock { $0.maskingRules = rules } }
}
