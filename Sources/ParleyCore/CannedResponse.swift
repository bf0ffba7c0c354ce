import Foundation

/// A saved reply, which agents insert by typing "/" and its shortcut: the team's (made by admins,
/// for every agent of the app) or an agent's own (their personal set, seen by them alone).
public struct CannedResponse: Hashable, Sendable, Codable {
    public var id: CannedResponseID
    public var appID: AppID
    /// The agent whose personal response this is; nil for the team's.
    public var ownerID: AgentID?
    /// What agents type after "/": 1 to 32 of `a-z 0-9 - _`, unique in the team's set and in each
    /// agent's own (an agent's own may share a team shortcut: the picker lists both).
    public var shortcut: String
    /// A one-line name shown in the picker.
    public var title: String
    /// The reply itself; the same rules as a message text.
    public var text: String
    public var createdAt: Date
    public var updatedAt: Date

    public init(id: CannedResponseID, appID: AppID, ownerID: AgentID? = nil, shortcut: String, title: String, text: String, createdAt: Date, updatedAt: Date) {
        self.id = id
        self.appID = appID
        self.ownerID = ownerID
        self.shortcut = shortcut
        self.title = title
        self.text = text
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, appID = "app_id", ownerID = "owner_id", shortcut, title, text, createdAt = "created_at", updatedAt = "updated_at"
    }
}

/// `POST` and `PATCH /v1/admin/apps/{app}/canned-responses…`: on `PATCH`, absent fields stay as they are.
public struct CannedResponseRequest: Hashable, Sendable, Codable {
    public var shortcut: String?
    public var title: String?
    public var text: String?
    public init(shortcut: String? = nil, title: String? = nil, text: String? = nil) {
        self.shortcut = shortcut
        self.title = title
        self.text = text
    }
}

/// A list of canned responses, by shortcut (for an agent: their own first, then the team's).
public struct CannedResponseList: Hashable, Sendable, Codable {
    public var cannedResponses: [CannedResponse]
    public init(cannedResponses: [CannedResponse]) { self.cannedResponses = cannedResponses }
    enum CodingKeys: String, CodingKey { case cannedResponses = "canned_responses" }
}
