import Foundation
import Observation
import ParleyCore

/// What a UI shows of the whole client: connection, unread count, conversations. Observable, on the
/// main actor; ParleyUI only renders it.
@MainActor
@Observable
public final class ParleyState {
    /// The realtime connection's state.
    public internal(set) var connectionState: ConnectionState = .stopped
    /// Messages from agents not yet read, across every conversation (read on any device counts).
    public internal(set) var unreadCount = 0
    /// The visitor's conversations, newest activity first.
    public internal(set) var conversations: [Conversation] = []

    nonisolated init() {}
}

/// What a chat screen shows of one conversation. Observable, on the main actor.
@MainActor
@Observable
public final class ConversationModel {
    /// The conversation's id.
    public nonisolated let id: ConversationID
    /// The subject the visitor gave, if any.
    public internal(set) var subject: String?
    /// Queued, assigned or ended.
    public internal(set) var state: ConversationState = .queued
    /// Everyone in the conversation now: the visitor, and the agent once one joined.
    public internal(set) var participants: [Participant] = []
    /// The transcript, with the visitor's unsent messages last (``ChatMessage/deliveryState``).
    public internal(set) var messages: [ChatMessage] = []
    /// The agent in the conversation now.
    public internal(set) var agent: Participant?
    /// The 1-based queue position while waiting.
    public internal(set) var queuePosition: Int?
    /// True while the agent is typing.
    public internal(set) var isAgentTyping = false
    /// Agent messages not yet read.
    public internal(set) var unreadCount = 0
    /// The callback request this conversation is, as it stands now (nil for a chat): waiting,
    /// offered (ask the visitor: ``ParleyClient/dialog(for:)-(CallbackID)``), connecting, scheduled or ended.
    public internal(set) var callback: Callback?

    nonisolated init(id: ConversationID) {
        self.id = id
    }

    func update(from snapshot: ConversationSnapshot, pending: [OutboxItem], visitor: VisitorID?) {
        subject = snapshot.summary?.subject
        state = snapshot.state
        messages = snapshot.messages(pending: pending, visitor: visitor)
        agent = snapshot.agent
        participants = [visitor.map { Participant.visitor($0, name: nil) }, snapshot.agent].compactMap { $0 }
        queuePosition = snapshot.state == .queued ? snapshot.queuePosition : nil
        isAgentTyping = snapshot.typing.contains { $0.role == .agent }
        unreadCount = snapshot.unreadCount
        callback = snapshot.summary?.callback
    }
}

/// What happens in a client, as one stream (for apps and tools that prefer events to observation).
public enum ParleyEvent: Sendable, Hashable {
    /// The connection's state changed.
    case connection(ConnectionState)
    /// A stored event of a conversation arrived (a message, a notice, a state change, a read marker).
    case event(ConversationEvent)
    /// One of the visitor's messages was stored by the server.
    case delivered(ChatMessage, in: ConversationID)
    /// One of the visitor's messages was refused for good.
    case failed(ChatMessage, in: ConversationID)
    /// The queue position of a waiting conversation changed.
    case queuePosition(Int, in: ConversationID)
    /// Someone (the agent) started or stopped typing.
    case typing(Participant, isTyping: Bool, in: ConversationID)
    /// The unread count changed; `hasUnread` is Pyrus' `onNewReply(hasUnreadComments:)`.
    case unread(count: Int, hasUnread: Bool)
    /// The server told the client to forget what it held of a conversation (another epoch); a
    /// full replay follows.
    case reset(ConversationID)
}
