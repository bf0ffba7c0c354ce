import Foundation
import ParleyCore

/// The outbox as a pure state machine: messages wait in order; per conversation one is in flight
/// at a time, so the server stores them in the order they were sent; an acknowledged one leaves;
/// a lost connection sends the in-flight ones again (same client ids, so never twice stored).
public struct OutboxMachine: Sendable {
    /// What the I/O layer must do.
    public enum Action: Sendable, Hashable {
        /// Store a new message at the end of the stored outbox (durably: `send` returns after it).
        case store(OutboxItem)
        /// Replace the stored message with the same client message id (marked failed, or retried).
        case update(OutboxItem)
        /// Remove a message from the stored outbox (acknowledged, or discarded).
        case remove(clientMessageID: String)
        /// Send this message over the socket.
        case transmit(OutboxItem)
        /// The server stored the message as this event.
        case delivered(OutboxItem, ConversationEvent)
        /// The server refused the message for good.
        case failed(OutboxItem, reason: String)
    }

    public private(set) var items: [OutboxItem]
    private var inFlight: Set<String> = []
    private var isOnline = false

    /// Starts from the stored outbox (after a restart, everything there is sent again).
    public init(items: [OutboxItem] = []) {
        self.items = items
    }

    /// A message handed to `send`.
    public mutating func enqueue(_ item: OutboxItem) -> [Action] {
        items.append(item)
        return [.store(item)] + dispatch()
    }

    /// The socket is open and caught up.
    public mutating func connectionOpened() -> [Action] {
        isOnline = true
        inFlight = []
        return dispatch()
    }

    /// The socket is gone: whatever was in flight goes again on the next connection.
    public mutating func connectionLost() -> [Action] {
        isOnline = false
        inFlight = []
        return []
    }

    /// The server acknowledged a message with its stored event.
    public mutating func acknowledged(_ clientMessageID: String, event: ConversationEvent) -> [Action] {
        inFlight.remove(clientMessageID)
        guard let index = items.firstIndex(where: { $0.clientMessageID == clientMessageID }) else { return dispatch() }
        let item = items.remove(at: index)
        return [.remove(clientMessageID: clientMessageID), .delivered(item, event)] + dispatch()
    }

    /// The server refused a message. A fatal refusal fails it (it stays, marked, until the app
    /// retries or discards it); any other is sent again with the next connection.
    public mutating func refused(_ clientMessageID: String, reason: String, isFatal: Bool) -> [Action] {
        inFlight.remove(clientMessageID)
        guard isFatal, let index = items.firstIndex(where: { $0.clientMessageID == clientMessageID }) else { return [] }
        items[index].failure = reason
        return [.update(items[index]), .failed(items[index], reason: reason)] + dispatch()
    }

    /// The app asks to send a failed message again.
    public mutating func retry(_ clientMessageID: String) -> [Action] {
        guard let index = items.firstIndex(where: { $0.clientMessageID == clientMessageID }), items[index].failure != nil else { return [] }
        items[index].failure = nil
        return [.update(items[index])] + dispatch()
    }

    /// The app gives up a failed message, or a file whose upload it cancels.
    public mutating func discard(_ clientMessageID: String) -> [Action] {
        guard let index = items.firstIndex(where: { $0.clientMessageID == clientMessageID && ($0.failure != nil || $0.file != nil) }) else { return [] }
        inFlight.remove(clientMessageID)
        items.remove(at: index)
        return [.remove(clientMessageID: clientMessageID)] + dispatch()
    }

    /// Sends again what waits and is not in flight (after a file's upload failed for a while,
    /// with the socket still open).
    public mutating func resend() -> [Action] {
        dispatch()
    }

    /// Sends the first waiting message of each conversation that has none in flight. A failed
    /// message holds back the ones after it in its conversation, to keep their order.
    private mutating func dispatch() -> [Action] {
        guard isOnline else { return [] }
        var busy = Set(items.filter { inFlight.contains($0.clientMessageID) || $0.failure != nil }.map(\.conversationID))
        var actions: [Action] = []
        for item in items where !busy.contains(item.conversationID) {
            busy.insert(item.conversationID)
            inFlight.insert(item.clientMessageID)
            actions.append(.transmit(item))
        }
        return actions
    }
}
