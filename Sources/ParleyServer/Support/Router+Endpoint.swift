import HTTPTypes
import Hummingbird
import ParleyCore

extension RouterMethods {
    /// Routes an endpoint of ParleyCore's table: its method and path template come from the table
    /// that ParleyKit and the CLI call, so the two sides cannot drift apart.
    @discardableResult
    func on<Body, Answer>(
        _ endpoint: Endpoint<Body, Answer>,
        use handler: @Sendable @escaping (Request, Context) async throws -> some ResponseGenerator
    ) -> Self {
        on(RouterPath(endpoint.template), method: endpoint.method.httpMethod, use: handler)
    }
}

extension EndpointMethod {
    /// The method as HTTPTypes names it.
    var httpMethod: HTTPRequest.Method {
        switch self {
        case .get: .get
        case .post: .post
        case .put: .put
        case .patch: .patch
        case .delete: .delete
        }
    }
}
