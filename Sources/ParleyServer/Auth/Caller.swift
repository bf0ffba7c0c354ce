import Foundation
import ParleyCore

/// Who is making a request, once their token is checked.
public enum Caller: Sendable, Hashable {
    /// A visitor of an app.
    case visitor(VisitorCaller)
    /// A logged-in agent or admin of an app.
    case agent(AgentCaller)
    /// The server operator (the `--admin-token`): manages every app.
    case `operator`

    /// The app the caller acts in; nil for the operator, who has no conversations.
    var appID: AppID? {
        switch self {
        case .visitor(let visitor): visitor.appID
        case .agent(let agent): agent.appID
        case .operator: nil
        }
    }

    /// When the caller's token expires (the operator token does not).
    var expiresAt: Date {
        switch self {
        case .visitor(let visitor): visitor.expiresAt
        case .agent(let agent): agent.expiresAt
        case .operator: .distantFuture
        }
    }

    /// The participant this caller appears as in conversations.
    var participant: Participant {
        switch self {
        case .visitor(let visitor): .visitor(visitor.visitorID, name: visitor.name)
        case .agent(let agent): .agent(agent.agentID, name: agent.name)
        case .operator: .system
        }
    }
}

/// A verified visitor.
public struct VisitorCaller: Sendable, Hashable {
    public var appID: AppID
    public var visitorID: VisitorID
    public var name: String?
    /// When the token stops being valid; an open socket closes then.
    public var expiresAt: Date
    /// The SHA-256 of the token, so sign-out can revoke exactly this session.
    var tokenHash: String = ""
}

/// A verified agent.
public struct AgentCaller: Sendable, Hashable {
    public var appID: AppID
    public var agentID: AgentID
    public var name: String
    public var role: AgentRole
    /// The SHA-256 of the session token, so logout can revoke exactly this session.
    var tokenHash: String
    /// When the session ends; an open socket closes then.
    public var expiresAt: Date
}
