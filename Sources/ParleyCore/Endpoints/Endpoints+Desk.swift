import Foundation

extension Endpoint {
    /// `/v1/desk/…`: what the agent desk reads beyond single conversations.
    public static var desk: DeskEndpoints { DeskEndpoints() }
}

/// The desk's endpoints (agents and admins of the app only).
public struct DeskEndpoints: Sendable {
    /// `GET /v1/desk/search?q=&scope=messages|conversations&state=&queue_id=&agent_id=&from=&to=&rating=&cursor=&limit=`:
    /// full-text search over the app's conversations, paged (docs/protocol.md "Search").
    public var search: Endpoint<Void, SearchResults> { .init(.get, "/v1/desk/search") }

    /// `GET /v1/desk/counts`: how many conversations each inbox view holds for the caller now.
    public var counts: Endpoint<Void, InboxCounts> { .init(.get, "/v1/desk/counts") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] { [search.erased, counts.erased] }
}
