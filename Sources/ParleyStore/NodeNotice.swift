import ParleyCore

/// What another parleyd node sharing the database committed, told by id (decision 0006).
public enum NodeNotice: Sendable, Hashable {
    /// Another node stored events `seqs` of a conversation.
    case committed(ConversationID, app: AppID, seqs: ClosedRange<Int64>)
    /// The feed was interrupted and is back: notices may have been missed, so whoever follows
    /// conversations must catch up from their own cursors.
    case resync
}

/// A store that several processes share, and that tells each process what the others committed.
/// SQLite, opened by one process only, is not one.
public protocol NodeNoticeSource: Sendable {
    /// Notices of other nodes' commits, as they land, until the store closes or the stream is
    /// dropped. Never includes this process's own commits.
    func nodeNotices() -> AsyncStream<NodeNotice>
}
