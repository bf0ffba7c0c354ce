import Foundation

extension Endpoint {
    /// What every agent of an app may read about it: the team, the canned responses, the visitors.
    public static var team: TeamEndpoints { TeamEndpoints() }
}

/// The team endpoints (agents and admins only). `:visitor` is a ``VisitorID``.
public struct TeamEndpoints: Sendable {
    /// `GET /v1/team`: the app's agents and queues with their load.
    public var overview: Endpoint<Void, Team> { .init(.get, "/v1/team") }
    /// `GET /v1/canned-responses`: the caller's own saved replies, then the team's.
    public var cannedResponses: Endpoint<Void, CannedResponseList> { .init(.get, "/v1/canned-responses") }
    /// `POST /v1/canned-responses` (201): a saved reply in the caller's own set.
    public var createOwnCannedResponse: Endpoint<CannedResponseRequest, CannedResponse> { .init(.post, "/v1/canned-responses") }
    /// `PATCH /v1/canned-responses/:response`: one of the caller's own (a team response is not found here).
    public var updateOwnCannedResponse: Endpoint<CannedResponseRequest, CannedResponse> { .init(.patch, "/v1/canned-responses/:response") }
    /// `DELETE /v1/canned-responses/:response` (204): one of the caller's own.
    public var deleteOwnCannedResponse: Endpoint<Void, Void> { .init(.delete, "/v1/canned-responses/:response") }
    /// `GET /v1/visitors/:visitor`: a visitor of the agent's app.
    public var visitor: Endpoint<Void, Visitor> { .init(.get, "/v1/visitors/:visitor") }
    /// `GET /v1/visitors/:visitor/conversations?limit=`: their conversations, newest activity first.
    public var visitorConversations: Endpoint<Void, ConversationList> { .init(.get, "/v1/visitors/:visitor/conversations") }

    /// `GET /v1/tags`: the tags agents may put on conversations.
    public var tags: Endpoint<Void, TagList> { .init(.get, "/v1/tags") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] {
        [overview.erased, cannedResponses.erased, createOwnCannedResponse.erased, updateOwnCannedResponse.erased, deleteOwnCannedResponse.erased,
         visitor.erased, visitorConversations.erased, tags.erased]
    }
}
