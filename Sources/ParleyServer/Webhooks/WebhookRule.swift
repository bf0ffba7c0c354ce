import Foundation
import ParleyCore
import ParleyStore

/// The webhook side of a commit (``CommitEffects``): one outbox entry per event an app's endpoints
/// may take, expanded by the store into one row per enabled endpoint that subscribes to it, in the
/// commit's transaction (an app with no endpoints gets no rows). The payload is
/// ``WebhookPayload`` JSON; the deliverer adds the visitor's name and user id before the first
/// attempt and sends the same bytes on every retry.
public struct WebhookRule: CommitEffects {
    /// The outbox kind of webhook rows.
    public static let kind = "webhook"
    /// The apps that have an enabled endpoint, as this node last read them; nil: every app. A
    /// commit of another app adds no statement to its transaction.
    let apps: KnownApps?

    /// A rule for every app (the store finds no endpoint for apps without one).
    public init() { apps = nil }

    init(apps: KnownApps) { self.apps = apps }

    private func concerns(_ app: AppID) -> Bool { apps?.contains(app) ?? true }

    public func entries(for commit: ConversationCommit, change: ConversationChange) -> [OutboxEntry] {
        guard !commit.isDuplicate, concerns(commit.conversation.appID) else { return [] }
        let conversation = commit.conversation
        let visitor = WebhookVisitor(id: conversation.visitorID)
        var entries: [OutboxEntry] = []
        func add(_ type: WebhookEventType, _ event: ConversationEvent, _ data: WebhookEventData) {
            let payload = WebhookPayload(type: type, timestamp: event.createdAt, appID: conversation.appID, data: data)
            entries.append(Self.entry(payload, conversation: conversation, seq: event.seq))
        }
        for event in commit.events {
            switch event.body {
            case .message(let message) where event.author.role != .system:
                add(.messageCreated, event, WebhookEventData(
                    conversation: conversation, visitor: visitor,
                    message: WebhookMessage(seq: event.seq, clientMessageID: message.clientMessageID, text: message.text,
                                            attachment: message.attachment, createdAt: event.createdAt),
                    author: event.author))
            case .stateChanged(let state):
                switch (state.reason, state.to) {
                case (.opened, _), (.reopened, _):
                    var form: FormSubmission?
                    if case .open(let open) = change { form = open.formSubmission }
                    add(.conversationStarted, event, WebhookEventData(conversation: conversation, visitor: visitor, reason: state.reason.rawValue, form: form))
                case (_, .assigned):
                    let agent = commit.events.lazy.compactMap { candidate -> Participant? in
                        if case .participantJoined(let joined) = candidate.body, joined.participant.role == .agent { return joined.participant }
                        return nil
                    }.first ?? state.agentID.map { Participant.agent($0, name: nil) }
                    add(.conversationAssigned, event, WebhookEventData(conversation: conversation, visitor: visitor, agent: agent,
                                                                       reason: state.reason.rawValue))
                case (_, .ended):
                    add(.conversationEnded, event, WebhookEventData(conversation: conversation, visitor: visitor, reason: state.reason.rawValue))
                default:
                    break
                }
            case .callback(let change):
                // The conversation in the data carries the request after the change.
                if let type = WebhookEventType(rawValue: change.webhookType) {
                    add(type, event, WebhookEventData(conversation: conversation, visitor: visitor, agent: change.callback.agentID.map { .agent($0, name: nil) }))
                }
            default:
                break
            }
        }
        if case .open(let open) = change, let submission = open.formSubmission, let first = commit.events.first {
            add(.formSubmitted, first, WebhookEventData(conversation: conversation, visitor: visitor, form: submission))
        }
        return entries
    }

    public func entries(for rating: Rating, conversation: Conversation) -> [OutboxEntry] {
        guard concerns(conversation.appID) else { return [] }
        let payload = WebhookPayload(type: .ratingCreated, timestamp: rating.updatedAt, appID: conversation.appID,
                                     data: WebhookEventData(conversation: conversation, visitor: WebhookVisitor(id: conversation.visitorID), rating: rating))
        return [Self.entry(payload, conversation: conversation, seq: conversation.lastSeq)]
    }

    public func entries(for submission: FormSubmission, conversation: Conversation) -> [OutboxEntry] {
        guard concerns(conversation.appID) else { return [] }
        let payload = WebhookPayload(type: .formSubmitted, timestamp: submission.submittedAt, appID: conversation.appID,
                                     data: WebhookEventData(conversation: conversation, visitor: WebhookVisitor(id: conversation.visitorID), form: submission))
        return [Self.entry(payload, conversation: conversation, seq: conversation.lastSeq)]
    }

    static func entry(_ payload: WebhookPayload, conversation: Conversation, seq: Int64) -> OutboxEntry {
        let json = (try? ParleyJSON.encode(payload)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
        return OutboxEntry(
            id: WebhookMessageID.generate(at: payload.timestamp).rawValue, kind: kind, appID: conversation.appID, conversationID: conversation.id,
            seq: seq, payload: json, dueAt: payload.timestamp, targets: .webhookEndpoints(event: payload.type.rawValue))
    }
}
