import Foundation

/// Where a callback request stands, on the wire (``CallbackMachine/State`` without its values).
public enum CallbackStatus: String, Hashable, Sendable, Codable, CaseIterable {
    /// In its queue, waiting for an agent.
    case waiting
    /// An agent is ready; the visitor is asked to confirm before ``Callback/expiresAt``.
    case offered
    /// Confirmed: the agent calls, is called, or chats.
    case connecting
    /// Out of the queue until ``Callback/scheduledUntil`` (a snooze, a window or an opening ahead).
    case scheduled
    /// Over; ``Callback/endReason`` says why.
    case ended
}

/// A callback request: what the visitor asked for and where it stands. It travels with its
/// conversation (``Conversation/callback``) and in every `callback` event, so a client that
/// resumes the conversation's events knows the request's state from the newest one.
public struct Callback: Hashable, Sendable, Codable {
    /// The request's id: Genesys' service id, the conversation's id with the `cbk` prefix.
    public var id: CallbackID
    public var kind: CallbackKind
    /// *Call me*: the number the agent calls, in E.164.
    public var phone: String?
    /// The earliest moment the visitor wants to be helped; nil for as soon as possible.
    public var windowStart: Date?
    /// The latest moment (shown to agents; the request stays in its queue after it).
    public var windowEnd: Date?
    /// *I will call*: the number to dial, in E.164.
    public var dialNumber: String?
    /// *I will call*: the code the visitor gives when the call connects; it names the request.
    public var accessCode: String?
    /// The visitor's language for the dialogs and pushes (`de`, `en-GB`), when given.
    public var language: String?
    public var status: CallbackStatus
    /// The agent it is offered to or connecting with.
    public var agentID: AgentID?
    /// When an offer expires unconfirmed.
    public var expiresAt: Date?
    /// When a scheduled request goes back to its queue.
    public var scheduledUntil: Date?
    /// Why it ended.
    public var endReason: CallbackEnd?
    /// The outcome the agent recorded last.
    public var outcome: CallbackOutcome?
    /// How long the visitor has to confirm an offer, in seconds (the queue's setting when it was made).
    public var offerSeconds: Int
    /// How long "try again later" waits, in minutes (the queue's setting when it was made).
    public var snoozeMinutes: Int
    /// What an unconfirmed offer does (the queue's setting when it was made).
    public var onExpiry: CallbackExpiry

    /// Creates a request that waits in its queue (or is scheduled, when `scheduledUntil` is given).
    public init(
        id: CallbackID, kind: CallbackKind, phone: String? = nil, windowStart: Date? = nil, windowEnd: Date? = nil,
        dialNumber: String? = nil, accessCode: String? = nil, language: String? = nil, scheduledUntil: Date? = nil,
        offerSeconds: Int = CallbackSettings.standard.offerSeconds, snoozeMinutes: Int = CallbackSettings.standard.snoozeMinutes,
        onExpiry: CallbackExpiry = CallbackSettings.standard.onExpiry
    ) {
        self.id = id
        self.kind = kind
        self.phone = phone
        self.windowStart = windowStart
        self.windowEnd = windowEnd
        self.dialNumber = dialNumber
        self.accessCode = accessCode
        self.language = language
        self.status = scheduledUntil == nil ? .waiting : .scheduled
        self.scheduledUntil = scheduledUntil
        self.offerSeconds = offerSeconds
        self.snoozeMinutes = snoozeMinutes
        self.onExpiry = onExpiry
    }

    /// The conversation the request is.
    public var conversationID: ConversationID { id.conversationID }

    /// The request's state for ``CallbackMachine``; setting it sets ``status`` and the fields that go with it.
    public var state: CallbackMachine.State {
        get {
            switch status {
            case .waiting: .waiting
            case .offered: .offered(agent: agentID ?? AgentID(rawValue: ""), expiresAt: expiresAt ?? .distantPast)
            case .connecting: .connecting(agent: agentID ?? AgentID(rawValue: ""))
            case .scheduled: .scheduled(until: scheduledUntil ?? .distantPast)
            case .ended: .ended(endReason ?? .completed)
            }
        }
        set {
            agentID = nil
            expiresAt = nil
            scheduledUntil = nil
            endReason = nil
            switch newValue {
            case .waiting:
                status = .waiting
            case .offered(let agent, let until):
                status = .offered
                agentID = agent
                expiresAt = until
            case .connecting(let agent):
                status = .connecting
                agentID = agent
            case .scheduled(let until):
                status = .scheduled
                scheduledUntil = until
            case .ended(let reason):
                status = .ended
                endReason = reason
            }
        }
    }

    /// True until it has ended.
    public var isLive: Bool { status != .ended }

    enum CodingKeys: String, CodingKey {
        case id, kind, phone, windowStart = "window_start", windowEnd = "window_end", dialNumber = "dial_number"
        case accessCode = "access_code", language, status, agentID = "agent_id", expiresAt = "expires_at"
        case scheduledUntil = "scheduled_until", endReason = "end_reason", outcome, offerSeconds = "offer_seconds"
        case snoozeMinutes = "snooze_minutes", onExpiry = "on_expiry"
    }
}

/// A `callback` event: what happened to the request, and the request afterwards.
public struct CallbackChange: Hashable, Sendable, Codable {
    /// What happened.
    public enum Action: String, Hashable, Sendable, Codable, CaseIterable {
        /// The visitor asked for a callback.
        case requested
        /// An agent is ready; the visitor is asked to confirm.
        case offered
        /// The visitor confirmed.
        case confirmed
        /// The visitor asked to be asked again later.
        case snoozed
        /// The offer expired and the request went back to its queue, its place kept.
        case requeued
        /// A scheduled request's time came: it waits in its queue again.
        case due
        /// The visitor cancelled it.
        case cancelled
        /// The offer expired and the queue ends such requests.
        case expired
        /// The agent recorded the outcome and it is done.
        case completed
        /// The agent recorded the outcome and will try again later.
        case rescheduled
    }

    public var action: Action
    /// The request after the change.
    public var callback: Callback

    /// Creates the event body.
    public init(action: Action, callback: Callback) {
        self.action = action
        self.callback = callback
    }

    /// The webhook event type for the change: `callback.<action>`.
    public var webhookType: String { "callback.\(action.rawValue)" }
}

/// A queue's callback settings (`PUT /v1/admin/queues/{id}/callbacks`); a request keeps the
/// values of when it was made.
public struct CallbackSettings: Hashable, Sendable, Codable {
    /// Whether visitors may ask this queue for callbacks.
    public var enabled: Bool
    /// Seconds a visitor has to confirm an offer (10…3600).
    public var offerSeconds: Int
    /// Minutes "try again later" waits (1…240).
    public var snoozeMinutes: Int
    /// What an unconfirmed offer does.
    public var onExpiry: CallbackExpiry
    /// The number *I will call* visitors dial, in E.164; nil when the queue does not take such requests.
    public var dialNumber: String?

    /// Creates settings.
    public init(enabled: Bool, offerSeconds: Int, snoozeMinutes: Int, onExpiry: CallbackExpiry, dialNumber: String?) {
        self.enabled = enabled
        self.offerSeconds = offerSeconds
        self.snoozeMinutes = snoozeMinutes
        self.onExpiry = onExpiry
        self.dialNumber = dialNumber
    }

    /// What a queue has until an admin changes it: callbacks on, 60 s to confirm, 5 minutes'
    /// snooze, back to the queue on expiry, no number to dial.
    public static let standard = CallbackSettings(enabled: true, offerSeconds: 60, snoozeMinutes: 5, onExpiry: .requeue, dialNumber: nil)

    /// The problems with these settings, as `(field, message)`; empty when they are fine.
    public func problems() -> [(field: String, message: String)] {
        var problems: [(String, String)] = []
        if !(10...3_600).contains(offerSeconds) { problems.append(("offer_seconds", "must be between 10 and 3600")) }
        if !(1...240).contains(snoozeMinutes) { problems.append(("snooze_minutes", "must be between 1 and 240")) }
        if let dialNumber, PhoneNumber.normalize(dialNumber, defaultCallingCode: nil) != dialNumber {
            problems.append(("dial_number", "must be a number in E.164, such as +4930901820"))
        }
        return problems
    }

    enum CodingKeys: String, CodingKey {
        case enabled, offerSeconds = "offer_seconds", snoozeMinutes = "snooze_minutes", onExpiry = "on_expiry", dialNumber = "dial_number"
    }
}
