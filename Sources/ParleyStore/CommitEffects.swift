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

    public init(id: String, kind: String, appID: AppID, conversationID: ConversationID, seq: Int64, payload: String, dueAt: Date) {
        self.id = id
        self.kind = kind
        self.appID = appID
        self.conversationID = conversationID
        self.seq = seq
        self.payload = payload
        self.dueAt = dueAt
    }
}
