import Foundation

public enum CallbackKindPrefix: IdentifierKind { public static let prefix = "cbk" }
/// A callback request's id (`cbk_…`): Genesys' service id.
public typealias CallbackID = Identifier<CallbackKindPrefix>

/// How the visitor wants to be helped when an agent is free (Genesys Mobile Services' callback).
public enum CallbackKind: String, Hashable, Sendable, Codable, CaseIterable {
    /// The agent calls the visitor's number.
    case callMe = "call_me"
    /// The visitor calls a number the server gives, with an access code that names the request.
    case iWillCall = "i_will_call"
    /// The visitor is told, and chats with the agent who is ready.
    case notifyAndChat = "notify_and_chat"
}

/// What became of a *call me* request, as the agent records it.
public enum CallbackOutcome: String, Hashable, Sendable, Codable, CaseIterable {
    case connected
    case noAnswer = "no_answer"
    case wrongNumber = "wrong_number"
    /// Helped; nothing more to do.
    case done
}

/// Why a callback request ended.
public enum CallbackEnd: String, Hashable, Sendable, Codable {
    /// The agent recorded how it went (``CallbackOutcome``).
    case completed
    /// The visitor cancelled it ("my problem has been solved").
    case cancelled
    /// Nobody confirmed in time, and the queue ends such requests.
    case expired
}

/// What an unanswered confirmation does, per queue.
public enum CallbackExpiry: String, Hashable, Sendable, Codable {
    /// Back to the queue, with its place kept.
    case requeue
    /// The request ends.
    case end
}

extension Identifier where Kind == CallbackKindPrefix {
    /// The id of the callback request that `conversation` carries: a request is a conversation
    /// (its events, routing and isolation are the conversation's), so the two ids share their
    /// 26 characters and differ only in the prefix.
    public init(conversation: ConversationID) {
        self.init(rawValue: CallbackKindPrefix.prefix + "_" + conversation.rawValue.dropFirst(ConversationKind.prefix.count + 1))
    }

    /// The conversation the request is.
    public var conversationID: ConversationID {
        ConversationID(rawValue: ConversationKind.prefix + "_" + rawValue.dropFirst(CallbackKindPrefix.prefix.count + 1))
    }
}
