import Foundation

/// An app (tenant). Its id is public and goes into the mobile app; its secret key stays on servers.
public struct App: Hashable, Sendable, Codable {
    public var id: AppID
    public var name: String
    public var createdAt: Date
    public init(id: AppID, name: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.createdAt = createdAt
    }
    enum CodingKeys: String, CodingKey { case id, name, createdAt = "created_at" }
}

/// A queue of an app: where conversations wait for its agents (an entry point, a named area).
public struct Queue: Hashable, Sendable, Codable {
    public var id: QueueID
    public var appID: AppID
    public var name: String
    public var createdAt: Date
    public init(id: QueueID, appID: AppID, name: String, createdAt: Date) {
        self.id = id
        self.appID = appID
        self.name = name
        self.createdAt = createdAt
    }
    enum CodingKeys: String, CodingKey { case id, appID = "app_id", name, createdAt = "created_at" }
}

/// What an agent may do: answer conversations, or also manage the app.
public enum AgentRole: String, Hashable, Sendable, Codable, CaseIterable {
    case agent, admin
}

/// Whether an agent takes new conversations.
public enum Availability: String, Hashable, Sendable, Codable, CaseIterable {
    /// Takes new conversations (while connected).
    case online
    /// Keeps current conversations, takes no new ones.
    case away
    /// Takes none; current conversations go back to the queue after the grace time.
    case offline
}

/// A support agent or admin of one app.
public struct Agent: Hashable, Sendable, Codable {
    public var id: AgentID
    public var appID: AppID
    public var name: String
    /// The login; unique across the server.
    public var email: String
    public var role: AgentRole
    /// The queues whose conversations the agent is routed.
    public var queueIDs: [QueueID]
    /// The most conversations the agent handles at once.
    public var capacity: Int
    public var availability: Availability
    /// A disabled agent cannot log in and is routed nothing.
    public var isDisabled: Bool
    public var createdAt: Date

    public init(
        id: AgentID, appID: AppID, name: String, email: String, role: AgentRole, queueIDs: [QueueID],
        capacity: Int, availability: Availability, isDisabled: Bool, createdAt: Date
    ) {
        self.id = id
        self.appID = appID
        self.name = name
        self.email = email
        self.role = role
        self.queueIDs = queueIDs
        self.capacity = capacity
        self.availability = availability
        self.isDisabled = isDisabled
        self.createdAt = createdAt
    }

    enum CodingKeys: String, CodingKey {
        case id, appID = "app_id", name, email, role, queueIDs = "queue_ids", capacity, availability
        case isDisabled = "disabled", createdAt = "created_at"
    }
}

/// A visitor: an app user, bound to the device id the SDK keeps, or, once the app has proved who
/// the user is, to the app's user id on every device.
public struct Visitor: Hashable, Sendable, Codable {
    public var id: VisitorID
    public var appID: AppID
    /// The device an anonymous visitor is bound to; for a verified user, a placeholder no device
    /// can send (``Visitor/userDeviceID(_:)``).
    public var deviceID: String
    public var name: String?
    public var email: String?
    public var attributes: [String: String]
    public var createdAt: Date
    /// The app's id for this user, when the app proved it (verified identity); nil when anonymous.
    public var userID: String?
    /// The profile fields that came from the verified source (`name`, `email`, `attributes.plan`…),
    /// sorted; the others the app merely claimed. Nil when anonymous.
    public var verifiedFields: [String]?

    public init(
        id: VisitorID, appID: AppID, deviceID: String, name: String?, email: String?,
        attributes: [String: String], createdAt: Date, userID: String? = nil, verifiedFields: [String]? = nil
    ) {
        self.id = id
        self.appID = appID
        self.deviceID = deviceID
        self.name = name
        self.email = email
        self.attributes = attributes
        self.createdAt = createdAt
        self.userID = userID
        self.verifiedFields = verifiedFields
    }

    /// The device id a verified user's visitor row carries: it starts with a character outside
    /// printable ASCII, which no SDK device id may contain (``Validation/deviceID(_:)``), so an
    /// anonymous device can never claim it.
    public static func userDeviceID(_ userID: String) -> String { "\u{00B7}user\u{00B7}" + userID }

    enum CodingKeys: String, CodingKey {
        case id, appID = "app_id", deviceID = "device_id", name, email, attributes, createdAt = "created_at"
        case userID = "user_id", verifiedFields = "verified_fields"
    }
}
