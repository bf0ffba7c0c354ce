import Foundation
import ParleyCore

/// A change to a conversation that a store commits atomically with the events it produces.
///
/// Stores apply changes through ``ConversationLifecycle`` so that every store follows the same rules;
/// what differs between stores is only how rows are read, locked and written.
public enum ConversationChange: Sendable {
    case open(Open)
    case postMessage(PostMessage)
    case assign(Assign)
    case requeue(Requeue)
    case end(End)
    case markRead(MarkRead)
    case transfer(Transfer)
    case pushPage(PushPage)
    case callback(CallbackUpdate)

    /// A visitor opens a new conversation, which starts queued.
    public struct Open: Sendable {
        public var id: ConversationID
        public var appID: AppID
        public var queueID: QueueID
        public var visitorID: VisitorID
        public var visitorName: String?
        public var subject: String?
        public var attributes: [String: String]
        public var queueRank: Int64
        public var at: Date
        /// The pre-chat (or unavailable) form's answers, stored in the same transaction.
        public var formSubmission: FormSubmission?
        /// The callback request the conversation is (`POST /v1/callbacks`), waiting or scheduled.
        public var callback: Callback?
        /// The visitor as the author of the opening event.
        public var visitor: Participant { .visitor(visitorID, name: visitorName) }
        public init(id: ConversationID, appID: AppID, queueID: QueueID, visitorID: VisitorID, visitorName: String?, subject: String?,
                    attributes: [String: String], queueRank: Int64, at: Date, formSubmission: FormSubmission? = nil, callback: Callback? = nil) {
            self.formSubmission = formSubmission
            self.callback = callback
            self.id = id
            self.appID = appID
            self.queueID = queueID
            self.visitorID = visitorID
            self.visitorName = visitorName
            self.subject = subject
            self.attributes = attributes
            self.queueRank = queueRank
            self.at = at
        }
    }

    /// A message (text, or a file and its caption); a visitor's message into an ended
    /// conversation reopens it at `reopenRank`.
    public struct PostMessage: Sendable {
        public var conversationID: ConversationID
        public var appID: AppID
        public var author: Participant
        public var clientMessageID: String
        public var text: String
        /// The file, whose bytes are already in the ``BlobStore``.
        public var attachment: Attachment?
        public var reopenRank: Int64
        public var at: Date
        public init(conversationID: ConversationID, appID: AppID, author: Participant, clientMessageID: String, text: String,
                    attachment: Attachment? = nil, reopenRank: Int64, at: Date) {
            self.attachment = attachment
            self.conversationID = conversationID
            self.appID = appID
            self.author = author
            self.clientMessageID = clientMessageID
            self.text = text
            self.reopenRank = reopenRank
            self.at = at
        }
    }

    /// A queued conversation goes to an agent.
    public struct Assign: Sendable {
        public var conversationID: ConversationID
        public var appID: AppID
        public var agent: Participant
        public var at: Date
        public init(conversationID: ConversationID, appID: AppID, agent: Participant, at: Date) {
            self.conversationID = conversationID
            self.appID = appID
            self.agent = agent
            self.at = at
        }
    }

    /// An assigned conversation goes back to its queue (the agent's offline grace ran out).
    public struct Requeue: Sendable {
        public var conversationID: ConversationID
        public var appID: AppID
        public var agent: Participant
        public var queueRank: Int64
        public var at: Date
        public init(conversationID: ConversationID, appID: AppID, agent: Participant, queueRank: Int64, at: Date) {
            self.conversationID = conversationID
            self.appID = appID
            self.agent = agent
            self.queueRank = queueRank
            self.at = at
        }
    }

    /// The visitor or the assigned agent ends the conversation (a visitor's end while queued cancels it).
    public struct End: Sendable {
        public var conversationID: ConversationID
        public var appID: AppID
        public var by: Participant
        public var at: Date
        public init(conversationID: ConversationID, appID: AppID, by: Participant, at: Date) {
            self.conversationID = conversationID
            self.appID = appID
            self.by = by
            self.at = at
        }
    }

    /// A participant read the conversation up to `seq`.
    public struct MarkRead: Sendable {
        public var conversationID: ConversationID
        public var appID: AppID
        public var by: Participant
        public var seq: Int64
        public var at: Date
        public init(conversationID: ConversationID, appID: AppID, by: Participant, seq: Int64, at: Date) {
            self.conversationID = conversationID
            self.appID = appID
            self.by = by
            self.seq = seq
            self.at = at
        }
    }

    /// The assigned agent, or an admin, hands an assigned conversation to another agent or queue.
    public struct Transfer: Sendable {
        /// Where the conversation goes.
        public enum Target: Sendable, Hashable {
            /// Straight to this agent, who joins.
            case agent(Participant)
            /// To the head of this queue, at `rank`, to be routed again.
            case queue(QueueID, rank: Int64)
        }
        public var conversationID: ConversationID
        public var appID: AppID
        /// The agent who transfers.
        public var by: Participant
        /// True when `by` is an admin of the app, who may transfer conversations assigned to others.
        public var byAdmin: Bool
        public var target: Target
        public var at: Date
        public init(conversationID: ConversationID, appID: AppID, by: Participant, byAdmin: Bool, target: Target, at: Date) {
            self.conversationID = conversationID
            self.appID = appID
            self.by = by
            self.byAdmin = byAdmin
            self.target = target
            self.at = at
        }
    }

    /// The assigned agent shows the visitor a web page (a `page_pushed` event).
    public struct PushPage: Sendable {
        public var conversationID: ConversationID
        public var appID: AppID
        public var agent: Participant
        public var page: PagePush
        public var at: Date
        public init(conversationID: ConversationID, appID: AppID, agent: Participant, page: PagePush, at: Date) {
            self.conversationID = conversationID
            self.appID = appID
            self.agent = agent
            self.page = page
            self.at = at
        }
    }

    /// A step in a callback request's life (``CallbackMachine``), by its visitor, its agent or
    /// the server's timers.
    public struct CallbackUpdate: Sendable {
        /// What happens.
        public enum Step: Sendable, Hashable {
            /// The visitor says yes to an offer.
            case confirm
            /// The visitor asks to be asked again after the request's snooze time.
            case snooze
            /// The visitor cancels.
            case cancel
            /// The server: an offer's time ran out (nothing happens before ``Callback/expiresAt``).
            case expire
            /// The server: a scheduled request's time came (nothing happens before it).
            case due
            /// The agent connecting with it records how it went; `retryAt` schedules another try.
            case outcome(CallbackOutcome, retryAt: Date?)
        }
        public var conversationID: ConversationID
        public var appID: AppID
        /// The visitor, the agent, or the system for the timers.
        public var by: Participant
        public var step: Step
        public var at: Date
        public init(conversationID: ConversationID, appID: AppID, by: Participant, step: Step, at: Date) {
            self.conversationID = conversationID
            self.appID = appID
            self.by = by
            self.step = step
            self.at = at
        }
    }

    /// The conversation the change applies to.
    public var conversationID: ConversationID {
        switch self {
        case .open(let change): change.id
        case .postMessage(let change): change.conversationID
        case .assign(let change): change.conversationID
        case .requeue(let change): change.conversationID
        case .end(let change): change.conversationID
        case .markRead(let change): change.conversationID
        case .transfer(let change): change.conversationID
        case .pushPage(let change): change.conversationID
        case .callback(let change): change.conversationID
        }
    }

    /// The app the caller acts in; a conversation of another app is "not found".
    public var appID: AppID {
        switch self {
        case .open(let change): change.appID
        case .postMessage(let change): change.appID
        case .assign(let change): change.appID
        case .requeue(let change): change.appID
        case .end(let change): change.appID
        case .markRead(let change): change.appID
        case .transfer(let change): change.appID
        case .pushPage(let change): change.appID
        case .callback(let change): change.appID
        }
    }

    /// When the change happens.
    public var at: Date {
        switch self {
        case .open(let change): change.at
        case .postMessage(let change): change.at
        case .assign(let change): change.at
        case .requeue(let change): change.at
        case .end(let change): change.at
        case .markRead(let change): change.at
        case .transfer(let change): change.at
        case .pushPage(let change): change.at
        case .callback(let change): change.at
        }
    }
}

/// What a store committed for a change: the conversation afterwards and the new events, in seq order.
public struct ConversationCommit: Sendable, Hashable {
    public var conversation: Conversation
    /// The events stored by this change (empty for a no-op such as ending an ended conversation).
    public var events: [ConversationEvent]
    /// True when a message with the same client id and content was already stored; `events` holds it.
    public var isDuplicate: Bool
    /// Each event as the JSON text the store wrote (``ParleyJSON``, sorted keys), when it has it:
    /// the realtime layer sends these bytes instead of encoding every event again per socket.
    public var encodedEvents: [String]?
    /// The conversation's queue rank afterwards (nil unless queued): routing places it there.
    public var queueRank: Int64?
    /// True when the change moved the conversation (opened, queued, assigned, transferred, ended,
    /// or its callback request changed):
    /// routing, here and on the other nodes, must look at it again.
    public var moved: Bool
    public init(
        conversation: Conversation, events: [ConversationEvent], isDuplicate: Bool = false, encodedEvents: [String]? = nil,
        queueRank: Int64? = nil, moved: Bool = false
    ) {
        precondition(encodedEvents == nil || encodedEvents?.count == events.count, "one encoding per event")
        self.conversation = conversation
        self.events = events
        self.isDuplicate = isDuplicate
        self.encodedEvents = encodedEvents
        self.queueRank = queueRank
        self.moved = moved
    }
}
