import Foundation
import ParleyCore

/// Parley's storage, at the level of the domain. SQLite and PostgreSQL implement it; one
/// conformance suite (Tests/ParleyStoreTests) holds every implementation to the same behaviour.
/// It is four smaller seams, one per concern, so a service names only the one it uses:
/// ``AccountStore``, ``ConversationStore``, ``SettingsStore``, ``OutboxStore`` and ``AttachmentStore``.
///
/// Rules every implementation keeps:
/// - Every read and write is scoped by app: a row of another app is "not found".
/// - ``ConversationStore/commit(_:effects:)`` returns only after the change is durable (fsync'd), and numbers a conversation's
///   events with a gap-free, strictly increasing seq.
/// - Resending a message with the same client message id returns the stored event; the same id with
///   other content throws ``StoreError/idempotencyConflict(_:)``.
public protocol ParleyStore: AccountStore, ConversationStore, SettingsStore, OutboxStore, AttachmentStore, WebhookStore, PushDeviceStore, PushDeliveryStore, SearchStore, TriageStore, ReportStore {
    /// A random id fixed when the database was created. A client whose cursor belongs to another
    /// epoch (a restored backup, a new database) must resync from scratch.
    func epoch() async throws -> String

    /// The names of the schema migrations applied to the database, in the order they ran.
    func appliedMigrations() async throws -> [String]

    /// The secret stored under `name`, made on first use: when there is none yet, `proposed` is
    /// stored and returned. The first process to store one wins, so every parleyd node sharing the
    /// database signs and checks with the same key.
    func sharedSecret(_ name: String, proposed: Data) async throws -> Data

    /// Finishes pending writes and releases the database.
    func close() async throws
}

/// Apps, queues, agents and their sessions, visitors.
public protocol AccountStore: Sendable {
    // MARK: Apps and queues
    func insertApp(_ app: App, secretKey: String) async throws
    func app(_ id: AppID) async throws -> StoredApp?
    func apps() async throws -> [App]
    func updateApp(_ app: App, secretKey: String?) async throws
    func insertQueue(_ queue: Queue) async throws
    func queues(app: AppID) async throws -> [Queue]
    func updateQueue(_ queue: Queue) async throws

    // MARK: Agents and their sessions
    /// Inserts an agent. Throws ``StoreError/duplicate(_:)`` when the email is taken.
    func insertAgent(_ agent: Agent, passwordHash: String) async throws
    func agent(_ id: AgentID) async throws -> StoredAgent?
    /// Finds an agent by email, case-insensitively.
    func agent(email: String) async throws -> StoredAgent?
    func agents(app: AppID) async throws -> [Agent]
    /// Every agent of every app, for the routing engine's start.
    func allAgents() async throws -> [Agent]
    /// Updates an agent's fields; a nil hash keeps the password.
    func updateAgent(_ agent: Agent, passwordHash: String?) async throws
    func insertSession(_ session: AgentSessionRecord) async throws
    func session(tokenHash: String) async throws -> AgentSessionRecord?
    func deleteSession(tokenHash: String) async throws
    /// Deletes every session of an agent (disable, password reset).
    func deleteSessions(agent: AgentID) async throws

    // MARK: Visitors
    /// Returns the visitor bound to a device id, creating it, and updating the profile fields given.
    func upsertVisitor(app: AppID, deviceID: String, profile: VisitorProfile, at: Date) async throws -> Visitor
    func visitor(_ id: VisitorID, app: AppID) async throws -> Visitor?
    /// The visitor of a user the app proved (verified identity), in one transaction: made on the
    /// user's first sign-in (bound to ``Visitor/userDeviceID(_:)``, never to a device), its profile
    /// updated with the fields given and `verifiedFields` recorded (replacing the earlier list).
    /// When `deviceID` has an anonymous visitor, its conversations and read positions move to the
    /// user, so what was written before signing in stays with the user; the anonymous visitor is
    /// left empty, and its old token reaches nothing.
    func verifiedVisitor(
        app: AppID, userID: String, deviceID: String, profile: VisitorProfile, verifiedFields: [String], at: Date
    ) async throws -> VerifiedVisitor
    /// Records a visitor session token (by its SHA-256) as signed out until it would have expired;
    /// tokens past their expiry are forgotten on the way.
    func revokeVisitorToken(hash: String, expiresAt: Date, now: Date) async throws
    /// True when the visitor session token with this SHA-256 was signed out.
    func isVisitorTokenRevoked(hash: String) async throws -> Bool
}

/// What ``AccountStore/verifiedVisitor(app:userID:deviceID:profile:verifiedFields:at:)`` did.
public struct VerifiedVisitor: Sendable, Hashable {
    /// The user's visitor.
    public var visitor: Visitor
    /// Conversations the device's anonymous visitor had, now the user's.
    public var movedConversations: [ConversationID]

    public init(visitor: Visitor, movedConversations: [ConversationID]) {
        self.visitor = visitor
        self.movedConversations = movedConversations
    }
}

/// Conversations: the commit, their events, notes, ratings and form answers.
public protocol ConversationStore: Sendable {
    // MARK: Conversations
    /// Applies a change durably and returns the conversation and its new events. The store reads
    /// what ``ConversationLifecycle/reads(for:)`` asks, lets ``ConversationLifecycle/decide(_:context:effects:)``
    /// decide, and runs the decided writes, `effects`' outbox rows among them, in one transaction.
    func commit(_ change: ConversationChange, effects: any CommitEffects) async throws -> ConversationCommit
    func conversation(_ id: ConversationID, app: AppID) async throws -> Conversation?
    /// The conversation with its queue rank (nil unless queued), in whatever state: what routing
    /// reads when another node moved it.
    func conversationAndRank(_ id: ConversationID, app: AppID) async throws -> ActiveConversation?
    func conversations(_ query: ConversationQuery) async throws -> [Conversation]
    /// Events with seq greater than `afterSeq`, oldest first, at most `limit`.
    func events(_ id: ConversationID, app: AppID, afterSeq: Int64, limit: Int) async throws -> [ConversationEvent]
    /// Events with seq less than `beforeSeq`, oldest first, the newest `limit` of them.
    func events(_ id: ConversationID, app: AppID, beforeSeq: Int64, limit: Int) async throws -> [ConversationEvent]
    /// Every queued and assigned conversation of every app, for the routing engine's start.
    func activeConversations() async throws -> [ActiveConversation]
    /// A participant's read position in a conversation (0 when never read).
    func readSeq(_ id: ConversationID, participant: Participant) async throws -> Int64

    // MARK: Internal notes (agents only; never part of a conversation's events)
    /// Stores an agent's note on a conversation of the note's app, durably, numbered after the
    /// conversation's earlier notes. The same client note id, author and text again returns the stored
    /// note as a duplicate; the same id with anything else throws ``StoreError/idempotencyConflict(_:)``.
    func addNote(_ note: NewNote) async throws -> NoteCommit
    /// Notes with seq greater than `afterSeq`, oldest first, at most `limit`.
    func notes(_ id: ConversationID, app: AppID, afterSeq: Int64, limit: Int) async throws -> [InternalNote]

    // MARK: Ratings
    /// Stores the rating of an ended conversation of `rating`'s app, replacing an earlier one (whose
    /// `createdAt` stays). The agent and queue are the conversation's, read in the same transaction.
    /// Throws ``StoreError/notFound(_:)`` for a conversation of another app or another visitor,
    /// ``StoreError/invalidState(_:)`` unless it ended after an agent handled it.
    /// `effects`' rows for the rating (``CommitEffects/entries(for:conversation:)``) are stored in the same transaction.
    func rate(_ rating: NewRating, effects: any CommitEffects) async throws -> Rating
    /// A conversation's rating, if it has one.
    func rating(_ id: ConversationID, app: AppID) async throws -> Rating?
    /// Every rating of an app, as (score, agent, queue), for the admins' averages.
    func ratingScores(app: AppID) async throws -> [(score: Int, agentID: AgentID?, queueID: QueueID)]

    // MARK: Forms
    /// Stores a form's answers with an ended conversation of the visitor (the post-chat form),
    /// replacing earlier answers of that kind. Throws ``StoreError/notFound(_:)`` for another app's
    /// or visitor's conversation, ``StoreError/invalidState(_:)`` unless it has ended.
    /// `effects`' rows for the answers are stored in the same transaction.
    func submitForm(_ submission: FormSubmission, conversation: ConversationID, app: AppID, visitor: VisitorID, effects: any CommitEffects) async throws
    /// The forms answered for a conversation (pre-chat or unavailable, post-chat), oldest first.
    func formSubmissions(_ id: ConversationID, app: AppID) async throws -> [FormSubmission]
}

/// What admins set for an app: appearance, hours and forms as documents, canned responses; and
/// the recorded waits the estimated wait is made from.
public protocol SettingsStore: Sendable {
    // MARK: App settings and waits
    /// The JSON document an app keeps under `key` (appearance, a queue's hours, a form), or nil.
    func setting(_ key: String, app: AppID) async throws -> String?
    /// Stores the JSON document under `key` for an app, replacing it; nil deletes it.
    /// Throws ``StoreError/notFound(_:)`` when the app does not exist.
    func setSetting(_ key: String, app: AppID, value: String?, at: Date) async throws
    /// How long conversations of a queue waited before an agent took them, most recent first,
    /// assigned at or after `since`, at most `limit`.
    func waitSamples(queue: QueueID, since: Date, limit: Int) async throws -> [WaitEstimator.Sample]

    // MARK: Canned responses
    // A response belongs to the team's set (`ownerID` nil) or to one agent's own; shortcuts are
    // unique within a set, and every call below stays within the set it names.
    /// Inserts a canned response. Throws ``StoreError/duplicate(_:)`` when its set has the shortcut.
    func insertCannedResponse(_ response: CannedResponse) async throws
    /// The app's team responses (`owner` nil) or one agent's own, by shortcut.
    func cannedResponses(app: AppID, owner: AgentID?) async throws -> [CannedResponse]
    /// A response of the set `owner` names, or nil.
    func cannedResponse(_ id: CannedResponseID, app: AppID, owner: AgentID?) async throws -> CannedResponse?
    /// Replaces a canned response's shortcut, title, text and `updatedAt`, within its set (`ownerID`).
    /// Throws ``StoreError/duplicate(_:)`` when another response of the set has the shortcut,
    /// ``StoreError/notFound(_:)`` when the set has no such response.
    func updateCannedResponse(_ response: CannedResponse) async throws
    /// Deletes a canned response of the set `owner` names; false when it has no such response.
    func deleteCannedResponse(_ id: CannedResponseID, app: AppID, owner: AgentID?) async throws -> Bool
}

/// Work kept durably until it is done: outbox rows made by commits, transcript emails.
public protocol OutboxStore: Sendable {
    // MARK: Outbox
    /// Outbox rows of `kind` not yet delivered, oldest first, at most `limit`.
    func pendingOutbox(kind: String, limit: Int) async throws -> [OutboxEntry]
    /// How many outbox rows and emails wait to be delivered, by kind (`"mail"` for transcript emails).
    func outboxDepths() async throws -> [String: Int]
    /// Takes up to `limit` rows of `kind` due at `now`, oldest first, and holds each for `lease`
    /// (its next attempt moves to `now + lease`), so no other worker or node tries it meanwhile.
    /// A row is not taken while an earlier row (by seq, then insertion) of the same conversation and
    /// target waits, nor while it is held (its target disabled). PostgreSQL takes rows with
    /// `FOR UPDATE SKIP LOCKED`, so nodes claiming at once take different rows.
    func claimOutbox(kind: String, now: Date, lease: TimeInterval, limit: Int) async throws -> [ClaimedOutboxRow]
    /// Records an attempt at a claimed row and what follows it, in one transaction; `body` (the
    /// bytes sent) is kept from the first attempt on.
    func recordOutboxAttempt(_ id: String, _ attempt: OutboxAttemptRecord, body: String?, outcome: OutboxOutcome) async throws
    /// Rows of `kind` for `target`, newest first, at most `limit`, with their attempts.
    func outboxRows(kind: String, target: String, limit: Int) async throws -> [OutboxRowRecord]
    /// An app's rows of `kind`, newest first, at most `limit`, with their attempts.
    func outboxRows(kind: String, app: AppID, limit: Int) async throws -> [OutboxRowRecord]
    /// One row of `kind` for `target` with its attempts, or nil.
    func outboxRow(_ id: String, kind: String, target: String) async throws -> OutboxRowRecord?
    /// Makes a row due again at `at` (pending, not held), whatever became of it; its attempts stay.
    /// False when there is no such row.
    func resendOutbox(_ id: String, kind: String, target: String, at: Date) async throws -> Bool

    // MARK: Mail outbox
    /// Keeps an email to send, durably, for a conversation of its app.
    /// Throws ``StoreError/notFound(_:)`` for a conversation of another app.
    func enqueueMail(_ mail: OutgoingMail) async throws
    /// Takes up to `limit` pending emails whose attempt is due at `now`, and holds each for `lease`
    /// (its next attempt moves to `now + lease`), so another node does not send it meanwhile.
    func claimDueMail(now: Date, lease: TimeInterval, limit: Int) async throws -> [OutgoingMail]
    /// Records how an attempt ended (counts it, keeps the error, sets the next attempt or the end).
    func recordMailAttempt(_ id: String, _ attempt: MailAttempt, at: Date) async throws
    /// The transcript emails of a conversation, oldest first.
    func mail(conversation: ConversationID, app: AppID) async throws -> [TranscriptEmail]
}

extension ConversationStore {
    /// Applies a change with no side effects (see ``commit(_:effects:)``).
    public func commit(_ change: ConversationChange) async throws -> ConversationCommit {
        try await commit(change, effects: NoCommitEffects())
    }
    /// Stores a rating with no side effects (see ``rate(_:effects:)``).
    public func rate(_ rating: NewRating) async throws -> Rating {
        try await rate(rating, effects: NoCommitEffects())
    }
    /// Stores a form's answers with no side effects (see ``submitForm(_:conversation:app:visitor:effects:)``).
    public func submitForm(_ submission: FormSubmission, conversation: ConversationID, app: AppID, visitor: VisitorID) async throws {
        try await submitForm(submission, conversation: conversation, app: app, visitor: visitor, effects: NoCommitEffects())
    }
}

/// A note to store (``ParleyStore/addNote(_:)``).
public struct NewNote: Sendable, Hashable {
    public var conversationID: ConversationID
    public var appID: AppID
    public var author: Participant
    public var clientNoteID: String
    public var text: String
    public var at: Date
    public init(conversationID: ConversationID, appID: AppID, author: Participant, clientNoteID: String, text: String, at: Date) {
        self.conversationID = conversationID
        self.appID = appID
        self.author = author
        self.clientNoteID = clientNoteID
        self.text = text
        self.at = at
    }
}

/// What ``ParleyStore/addNote(_:)`` stored, or found stored before.
public struct NoteCommit: Sendable, Hashable {
    public var note: InternalNote
    /// True when the same note had been stored before (a retried write).
    public var isDuplicate: Bool
    public init(note: InternalNote, isDuplicate: Bool) {
        self.note = note
        self.isDuplicate = isDuplicate
    }
}

/// An app with its secret key.
public struct StoredApp: Sendable, Hashable {
    public var app: App
    public var secretKey: String
    public init(app: App, secretKey: String) {
        self.app = app
        self.secretKey = secretKey
    }
}

/// An agent with its password hash.
public struct StoredAgent: Sendable, Hashable {
    public var agent: Agent
    public var passwordHash: String
    public init(agent: Agent, passwordHash: String) {
        self.agent = agent
        self.passwordHash = passwordHash
    }
}

/// A logged-in agent's session. The token itself is never stored, only its SHA-256.
public struct AgentSessionRecord: Sendable, Hashable {
    public var tokenHash: String
    public var agentID: AgentID
    public var appID: AppID
    public var createdAt: Date
    public var expiresAt: Date
    public init(tokenHash: String, agentID: AgentID, appID: AppID, createdAt: Date, expiresAt: Date) {
        self.tokenHash = tokenHash
        self.agentID = agentID
        self.appID = appID
        self.createdAt = createdAt
        self.expiresAt = expiresAt
    }
}

/// The profile fields a visitor session may set; nil leaves a field as it is.
public struct VisitorProfile: Sendable, Hashable {
    public var name: String?
    public var email: String?
    public var attributes: [String: String]?
    public init(name: String? = nil, email: String? = nil, attributes: [String: String]? = nil) {
        self.name = name
        self.email = email
        self.attributes = attributes
    }

    /// Updates `visitor` with the fields given (absent ones keep their value; attributes merge key
    /// by key): what every store does on a session, anonymous or verified.
    /// - Throws: ``StoreError/invalidInput(_:)`` past ``Limits/maxAttributes``; `visitor` is then
    ///   left as it was.
    public func apply(to visitor: inout Visitor) throws {
        var updated = visitor
        if let name { updated.name = name }
        if let email { updated.email = email }
        if let attributes { updated.attributes.merge(attributes) { _, new in new } }
        if updated.attributes.count > Limits.maxAttributes {
            throw StoreError.invalidInput("attributes: a visitor has at most \(Limits.maxAttributes) (\(updated.attributes.count) with these)")
        }
        visitor = updated
    }
}

/// Which conversations to list, and in which order.
public struct ConversationQuery: Sendable, Hashable {
    /// The order of a list.
    public enum Order: Sendable, Hashable {
        /// Newest activity first (the default).
        case recentActivity
        /// Queue order: the head of each queue first (for queued conversations).
        case queue
    }

    public var appID: AppID
    public var visitorID: VisitorID?
    public var agentID: AgentID?
    public var states: Set<ConversationState>?
    public var limit: Int
    public var order: Order
    /// Only conversations of this queue.
    public var queueID: QueueID?
    /// Only conversations agents tagged with this.
    public var tag: String?
    /// Only conversations of this priority (never-triaged ones are `normal`).
    public var priority: ConversationPriority?
    /// With ``Order/recentActivity``: only conversations after this one in that order (keyset paging).
    public var after: ConversationSearchPosition?
    public init(appID: AppID, visitorID: VisitorID? = nil, agentID: AgentID? = nil, states: Set<ConversationState>? = nil, limit: Int = 100,
                order: Order = .recentActivity, queueID: QueueID? = nil, tag: String? = nil, priority: ConversationPriority? = nil,
                after: ConversationSearchPosition? = nil) {
        self.queueID = queueID
        self.tag = tag
        self.priority = priority
        self.after = after
        self.order = order
        self.appID = appID
        self.visitorID = visitorID
        self.agentID = agentID
        self.states = states
        self.limit = limit
    }
}

/// A queued or assigned conversation as routing needs it.
public struct ActiveConversation: Sendable, Hashable {
    public var conversation: Conversation
    /// Its rank in its queue while queued (smaller is nearer the head).
    public var queueRank: Int64?
    public init(conversation: Conversation, queueRank: Int64?) {
        self.conversation = conversation
        self.queueRank = queueRank
    }
}

/// A visitor rates a conversation (``ParleyStore/rate(_:)``).
public struct NewRating: Sendable, Hashable {
    public var conversationID: ConversationID
    public var appID: AppID
    /// The visitor rating: only the conversation's own visitor may.
    public var visitorID: VisitorID
    public var score: Int
    public var comment: String?
    public var at: Date
    public init(conversationID: ConversationID, appID: AppID, visitorID: VisitorID, score: Int, comment: String?, at: Date) {
        self.conversationID = conversationID
        self.appID = appID
        self.visitorID = visitorID
        self.score = score
        self.comment = comment
        self.at = at
    }
}