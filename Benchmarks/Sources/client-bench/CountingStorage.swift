import Foundation
import ParleyCore
import ParleyKit
import Synchronization

/// FileStorage that counts the events the client stores: the client appends an event once it has
/// applied it, so the count says how much of a history has arrived without asking for screens.
final class CountingStorage: ParleyStorage {
    let base: FileStorage
    let appendedEvents = Atomic<Int>(0)

    init(directory: URL) {
        base = FileStorage(directory: directory)
    }

    func loadSecrets() throws -> StoredSecrets? { try base.loadSecrets() }
    func saveSecrets(_ secrets: StoredSecrets) throws { try base.saveSecrets(secrets) }
    func loadOutbox() throws -> [OutboxItem] { try base.loadOutbox() }
    func appendOutbox(_ item: OutboxItem) throws { try base.appendOutbox(item) }
    func updateOutbox(_ item: OutboxItem) throws { try base.updateOutbox(item) }
    func removeOutbox(clientMessageID: String) throws { try base.removeOutbox(clientMessageID: clientMessageID) }
    func loadHistory() throws -> StoredHistory { try base.loadHistory() }
    // Forwarded, or the protocol's defaults would read the whole history through loadHistory().
    func loadHistoryIndex() throws -> StoredHistoryIndex { try base.loadHistoryIndex() }
    func loadEvents(of conversation: ConversationID) throws -> [ConversationEvent] { try base.loadEvents(of: conversation) }
    func appendEvents(_ events: [ConversationEvent], to conversation: ConversationID) throws {
        try base.appendEvents(events, to: conversation)
        appendedEvents.add(events.count, ordering: .relaxed)
    }
    func saveConversation(_ conversation: Conversation) throws { try base.saveConversation(conversation) }
    func saveEpoch(_ epoch: String) throws { try base.saveEpoch(epoch) }
    func resetEvents(of conversation: ConversationID) throws { try base.resetEvents(of: conversation) }
    func resetHistory(epoch: String?) throws { try base.resetHistory(epoch: epoch) }
}
