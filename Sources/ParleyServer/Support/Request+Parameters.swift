import Hummingbird
import ParleyCore

/// Path parameters as typed ids. A malformed id is "not found", like any id the caller may not see.
extension ParleyRequestContext {
    /// The `:id` of a conversation route.
    func conversationID() throws -> ConversationID {
        try identifier("id", notFound: "conversation not found")
    }

    /// A typed id from a path parameter, or 404 with `message`.
    func identifier<Kind>(_ name: String, notFound message: String) throws -> Identifier<Kind> {
        guard let id = parameters.get(name).flatMap(Identifier<Kind>.init(validating:)) else { throw APIError.notFound(message) }
        return id
    }
}

/// Query items as numbers, with a 400 naming the item when one is out of range.
extension Request {
    /// `name` as an integer in `range`, or nil when the query does not have it.
    func optionalInteger(_ name: String, range: ClosedRange<Int64>) throws -> Int64? {
        guard let text = uri.queryParameters.get(name) else { return nil }
        guard let value = Int64(text), range.contains(value) else { throw APIError.badRequest("\(name): an integer in \(range)") }
        return value
    }

    /// `name` as an integer in `range`, or `value` when the query does not have it.
    func integer(_ name: String, default value: Int, range: ClosedRange<Int>) throws -> Int {
        guard let text = uri.queryParameters.get(name) else { return value }
        guard let parsed = Int(text), range.contains(parsed) else { throw APIError.badRequest("\(name): an integer in \(range)") }
        return parsed
    }
}

/// Query items as typed ids, with a 400 naming the item when one is malformed.
extension Request {
    /// `name` as an id, or nil when the query does not have it.
    /// - Parameter kind: what the id names, for the refusal ("not a queue id").
    func optionalIdentifier<Kind>(_ name: String, kind: String) throws -> Identifier<Kind>? {
        guard let text = uri.queryParameters.get(name) else { return nil }
        guard let id = Identifier<Kind>(validating: text) else { throw APIError.badRequest("\(name): not \(kind)") }
        return id
    }
}
