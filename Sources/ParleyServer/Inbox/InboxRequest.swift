import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// An agent's `GET /v1/conversations` as its query asks for it, checked: every refusal is a 400
/// naming the item.
struct InboxRequest: Sendable, Hashable {
    var view: InboxViews.View
    var filter: InboxViews.Filter
    var limit: Int
    var cursor: InboxCursor?

    init(_ request: Request) throws {
        let query = request.uri.queryParameters
        view = try query.get("view").map { name in
            guard let view = InboxViews.View(rawValue: name) else {
                throw APIError.badRequest("view: \(InboxViews.View.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return view
        } ?? .mine
        filter = InboxViews.Filter()
        filter.tag = query.get("tag")
        filter.priority = try query.get("priority").map { name in
            guard let priority = ConversationPriority(rawValue: name) else { throw APIError.badRequest("priority: low, normal, high or urgent") }
            return priority
        }
        filter.queueID = try request.optionalIdentifier("queue_id", kind: "a queue id")
        filter.agentID = try request.optionalIdentifier("agent_id", kind: "an agent id")
        if view == .agent, filter.agentID == nil { throw APIError.badRequest("agent_id: the teammate whose conversations to list") }
        if view == .queue, filter.queueID == nil { throw APIError.badRequest("queue_id: the queue to list") }
        limit = try request.integer("limit", default: 100, range: 1...500)
        let isOpen = view.isOpen
        cursor = try query.get("cursor").map { text in
            guard let cursor = InboxCursor(text) else { throw APIError.badRequest("cursor: not one this list gave") }
            switch (cursor, isOpen) {
            case (.offset, true), (.position, false): return cursor
            default: throw APIError.badRequest("cursor: not one this list gave")
            }
        }
    }

    var offset: Int { if case .offset(let offset) = cursor { offset } else { 0 } }
    var position: ConversationSearchPosition? { if case .position(let position) = cursor { position } else { nil } }
}
