import Foundation
import ParleyCore

/// The side effects a commit must leave behind, durable with its events: rows of the outbox that
/// workers (push, webhooks) deliver at least once afterwards.
///
/// The server hands its rules to the store's commit; the store runs them inside the transaction,
/// on the decided commit, so an event is never stored without its outbox rows, nor the rows
/// without the event. A rule is a pure function of the commit: it reads nothing and waits on nothing.
public protocol CommitEffects: Sendable {
    /// The outbox rows to store with `commit` (made by `change`); usually none.
    func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry]
    /// The outbox rows to store with a rating (``ConversationStore/rate(_:effects:)``), in its
    /// transaction. Default none.
    func entries(for rating: Rating, conversation: Conversation) -> [OutboxEntry]
    /// The outbox rows to store with a post-chat form's answers (``ConversationStore/submitForm(_:conversation:app:visitor:effects:)``),
    /// in their transaction. Default none.
    func entries(for submission: FormSubmission, conversation: Conversation) -> [OutboxEntry]
}

extension CommitEffects {
    public func entries(for rating: Rating, conversation: Conversation) -> [OutboxEntry] { [] }
    public func entries(for submission: FormSubmission, conversation: Conversation) -> [OutboxEntry] { [] }
}

/// No side effects.
public struct NoCommitEffects: CommitEffects {
    public init() {}
    public func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry] { [] }
}

/// Several rules, each adding its rows, in order.
public struct CombinedCommitEffects: CommitEffects {
    public var rules: [any CommitEffects]
    public init(_ rules: [any CommitEffects]) { self.rules = rules }
    public func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry] {
        rules.flatMap { $0.entries(for: commit, change: change) }
    }
    public func entries(for rating: Rating, conversation: Conversation) -> [OutboxEntry] {
        rules.flatMap { $0.entries(for: rating, conversation: conversation) }
    }
    public func entries(for submission: FormSubmission, conversation: Conversation) -> [OutboxEntry] {
        rules.flatMap { $0.entries(for: submission, conversation: conversation) }
    }
}

/// A row of the outbox: something to deliver because of a commit (a push, a webhook call).
public struct OutboxEntry: Sendable, Hashable {
    /// Unique; a deliverer's idempotency key (the webhook id, the push's collapse id).
    public var id: String
    /// Which worker delivers it (`"webhook"`, `"push"`).
    public var kind: String
    public var appID: AppID
    public var conversationID: ConversationID
    /// The last event seq of the commit that made it.
    public var seq: Int64
    /// What to deliver, as the worker's own JSON.
    public var payload: String
    /// When it is first due.
    public var dueAt: Date
    /// Who it goes to: one row (``OutboxTargets/single``), or one row per destination the store
    /// finds in the same transaction (every enabled webhook endpoint of the app taking the event).
    public var targets: OutboxTargets

    public init(
        id: String, kind: String, appID: AppID, conversationID: ConversationID, seq: Int64, payload: String, dueAt: Date,
        targets: OutboxTargets = .single
    ) {
        self.id = id
        self.targets = targets
        self.kind = kind
        self.appID = appID
        self.conversationID = conversationID
        self.seq = seq
        self.payload = payload
        self.dueAt = dueAt
    }
}

/// Where an outbox entry goes. The store expands it into rows in the commit's transaction, so a
/// row exists exactly for the destinations that existed when the event was stored.
public enum OutboxTargets: Sendable, Hashable {
    /// One row, with no target (its id is the entry's id).
    case single
    /// One row per enabled webhook endpoint of the entry's app that takes events of this type;
    /// none when there is no such endpoint. Each row's id is `"<entry id>.<endpoint id>"`, its
    /// target the endpoint, its message id the entry's id.
    case webhookEndpoints(event: String)
    /// One row per push device the visitor has registered in the entry's app; none when there is
    /// no device. Each row's id is `"<entry id>.<device id>"`, its target the device, its message
    /// id the entry's id.
    case pushDevices(visitor: VisitorID)
}
