import Foundation
import ParleyCore

/// An outbox row taken by a worker (``OutboxStore/claimOutbox(kind:now:lease:limit:)``): held for
/// the lease, so no other worker or node tries it meanwhile.
public struct ClaimedOutboxRow: Sendable, Hashable {
    /// The row's id (unique per destination).
    public var id: String
    /// The id the receiver sees, the same on every attempt (the entry's id; the `webhook-id`).
    public var messageID: String
    public var kind: String
    public var appID: AppID
    public var conversationID: ConversationID
    /// The destination (a webhook endpoint's id), or empty.
    public var target: String
    /// What the commit stored.
    public var payload: String
    /// The body sent by the first attempt, kept so every retry sends the same bytes.
    public var body: String?
    /// Attempts recorded so far.
    public var attempts: Int
    public var createdAt: Date

    public init(
        id: String, messageID: String, kind: String, appID: AppID, conversationID: ConversationID, target: String, payload: String,
        body: String?, attempts: Int, createdAt: Date
    ) {
        self.id = id
        self.messageID = messageID
        self.kind = kind
        self.appID = appID
        self.conversationID = conversationID
        self.target = target
        self.payload = payload
        self.body = body
        self.attempts = attempts
        self.createdAt = createdAt
    }
}

/// One attempt at an outbox row, as recorded.
public struct OutboxAttemptRecord: Sendable, Hashable {
    public var at: Date
    /// The receiver's status code, when it answered.
    public var status: Int?
    /// The start of its answer.
    public var response: String?
    public var error: String?
    public var duration: TimeInterval

    public init(at: Date, status: Int?, response: String?, error: String?, duration: TimeInterval) {
        self.at = at
        self.status = status
        self.response = response
        self.error = error
        self.duration = duration
    }
}

/// What follows an attempt.
public enum OutboxOutcome: Sendable, Hashable {
    case delivered
    /// Done without sending (the visitor read it first; the device is gone), for this reason.
    case skipped(reason: String)
    /// Try again at this time.
    case retry(at: Date)
    /// Give up on the row. With `disablingTarget`, its destination is disabled with that reason in
    /// the same transaction, and its other waiting rows are held until it is enabled again.
    case failed(disablingTarget: String?)
}

/// An outbox row with its attempts, for the admins' lists.
public struct OutboxRowRecord: Sendable, Hashable {
    public var row: ClaimedOutboxRow
    public var status: String
    public var nextAttemptAt: Date?
    public var lastError: String?
    public var attempts: [OutboxAttemptRecord]

    public init(row: ClaimedOutboxRow, status: String, nextAttemptAt: Date?, lastError: String?, attempts: [OutboxAttemptRecord]) {
        self.row = row
        self.status = status
        self.nextAttemptAt = nextAttemptAt
        self.lastError = lastError
        self.attempts = attempts
    }
}

/// A webhook endpoint as stored: its secrets sealed with the server's key (never in clear).
public struct StoredWebhookEndpoint: Sendable, Hashable {
    public var endpoint: WebhookEndpoint
    /// The current signing secret, sealed.
    public var sealedSecret: String
    /// The secret before the last rotation, sealed, while it still signs (until
    /// ``WebhookEndpoint/previousSecretExpiresAt``).
    public var sealedPreviousSecret: String?

    public init(endpoint: WebhookEndpoint, sealedSecret: String, sealedPreviousSecret: String?) {
        self.endpoint = endpoint
        self.sealedSecret = sealedSecret
        self.sealedPreviousSecret = sealedPreviousSecret
    }
}

/// Apps' webhook endpoints (migration `0013-webhooks`).
public protocol WebhookStore: Sendable {
    /// Stores a new endpoint. Throws ``StoreError/notFound(_:)`` when the app does not exist.
    func insertWebhookEndpoint(_ endpoint: StoredWebhookEndpoint) async throws
    /// The apps that have an enabled endpoint (what the server's webhook rule consults before it
    /// adds rows to a commit).
    func webhookApps() async throws -> Set<AppID>
    /// An app's endpoints, oldest first.
    func webhookEndpoints(app: AppID) async throws -> [StoredWebhookEndpoint]
    /// One endpoint of an app, or nil (another app's is nil too).
    func webhookEndpoint(_ id: WebhookEndpointID, app: AppID) async throws -> StoredWebhookEndpoint?
    /// Replaces an endpoint's URL, events, description and secrets. Enabling and disabling go
    /// through ``setWebhookEndpointEnabled(_:app:enabled:reason:at:)``.
    func updateWebhookEndpoint(_ endpoint: StoredWebhookEndpoint) async throws
    /// Turns an endpoint on (its held deliveries become due at `at`) or off (with a reason; its
    /// waiting deliveries are held). False when the app has no such endpoint.
    func setWebhookEndpointEnabled(_ id: WebhookEndpointID, app: AppID, enabled: Bool, reason: String?, at: Date) async throws -> Bool
    /// Deletes an endpoint; its waiting deliveries are given up ("endpoint deleted"). False when the
    /// app has no such endpoint.
    func deleteWebhookEndpoint(_ id: WebhookEndpointID, app: AppID, at: Date) async throws -> Bool
}

extension OutboxAttemptRecord {
    /// What went wrong, in a few words, for a row's `last_error`: the error, or the status.
    public static func summary(_ attempt: OutboxAttemptRecord) -> String? {
        if let error = attempt.error { return error }
        if let status = attempt.status, !(200..<300).contains(status) { return "HTTP \(status)" }
        return nil
    }
}

/// How the stores keep an endpoint's event filter: `,message.created,rating.created,` (every
/// name between commas, so a `LIKE`/`instr` of `,name,` finds it), or empty for every event.
public enum WebhookEvents {
    public static func column(_ events: [WebhookEventType]) -> String {
        events.isEmpty ? "" : "," + events.map(\.rawValue).joined(separator: ",") + ","
    }
    public static func decode(_ column: String) -> [WebhookEventType] {
        column.split(separator: ",").compactMap { WebhookEventType(rawValue: String($0)) }
    }
}
