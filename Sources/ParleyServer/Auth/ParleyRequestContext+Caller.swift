import Hummingbird
import ParleyCore

/// What a route asks of its caller. Each throws the refusal ``CallerMiddleware`` kept (401, or 403
/// for a cookie without its CSRF token or from another origin) when there is no valid caller, and
/// the given error when the caller is of the wrong kind.
extension ParleyRequestContext {
    /// Any valid caller.
    func requireCaller() throws -> Caller {
        try authentication.get()
    }

    /// A visitor; anyone else gets `refusal`.
    func requireVisitor(else refusal: APIError) throws -> VisitorCaller {
        guard case .visitor(let visitor) = try requireCaller() else { throw refusal }
        return visitor
    }

    /// An agent or admin of some app; anyone else gets `refusal` (by default 403 "this route is for agents").
    func requireAgent(else refusal: APIError = .forbidden("this route is for agents")) throws -> AgentCaller {
        guard case .agent(let agent) = try requireCaller() else { throw refusal }
        return agent
    }

    /// The operator (the `--admin-token`); anyone else gets `refusal`.
    func requireOperator(else refusal: APIError) throws {
        guard case .operator = try requireCaller() else { throw refusal }
    }

    /// A visitor or agent, and the app they act in; the operator has none (403).
    func requireAppOfCaller() throws -> AppID {
        guard let app = try requireCaller().appID else { throw APIError.forbidden("visitors and agents only") }
        return app
    }
}
