import Foundation
import ParleyCore
import ParleyStore

/// What a push row carries from the commit to the worker: the event, never the device's keys.
struct PushJob: Codable, Sendable, Hashable {
    var kind: PushContent.Kind
    var visitorID: VisitorID
    var seq: Int64
    /// The agent's name, when an agent caused it.
    var agentName: String?
    /// The message's text or the page's title, for the preview.
    var text: String?
    var createdAt: Date

    enum CodingKeys: String, CodingKey {
        case kind, visitorID = "visitor_id", seq, agentName = "agent_name", text, createdAt = "created_at"
    }
}

/// The push side of a commit (``CommitEffects``): an agent's message or pushed page, the end of
/// the conversation, or its transfer, makes one entry that the store expands into one row per
/// device the visitor has registered, in the commit's transaction, due after
/// ``PushConfiguration/delay``. Apps without a provider key get no rows.
struct PushRule: CommitEffects {
    static let kind = "push"
    let apps: KnownApps
    let delay: TimeInterval

    func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry] {
        let conversation = commit.conversation
        guard !commit.isDuplicate, apps.contains(conversation.appID) else { return [] }
        var entries: [OutboxEntry] = []
        func add(_ kind: PushContent.Kind, _ event: ConversationEvent, text: String? = nil, delay: TimeInterval = delay) {
            let job = PushJob(kind: kind, visitorID: conversation.visitorID, seq: event.seq,
                              agentName: event.author.role == .agent ? event.author.name : nil, text: text, createdAt: event.createdAt)
            let payload = (try? ParleyJSON.encode(job)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
            entries.append(OutboxEntry(
                id: PushMessageID.generate(at: event.createdAt).rawValue, kind: Self.kind, appID: conversation.appID, conversationID: conversation.id,
                seq: event.seq, payload: payload, dueAt: event.createdAt.addingTimeInterval(delay), targets: .pushDevices(visitor: conversation.visitorID)))
        }
        for event in commit.events {
            switch event.body {
            case .message(let message) where event.author.role == .agent:
                add(.message, event, text: message.text.isEmpty ? message.attachment.map { "📎 \($0.name)" } : message.text)
            case .pagePushed(let page) where event.author.role == .agent:
                add(.page, event, text: page.title)
            case .callback(let change) where change.action == .offered:
                // At once: the offer expires in a minute or so, and reading the chat does not answer it.
                add(.callbackOffered, event, delay: 0)
            case .stateChanged(let state):
                switch (state.reason, state.to) {
                case (.transferred, _):
                    add(.transferred, event)
                case (_, .ended) where state.reason != .endedByVisitor && state.reason != .cancelled:
                    add(.ended, event)
                default:
                    break
                }
            default:
                break
            }
        }
        return entries
    }
}
