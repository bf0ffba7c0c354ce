import Foundation
import HTTPTypes
import Hummingbird
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// The server routes exactly ParleyCore's endpoint table: what ParleyKit and the CLI call exists.
@Suite(.timeLimit(.minutes(2)))
struct EndpointRoutingTests {
    /// The desk's and the chat page's static files: routed, but files rather than API, so not in the table.
    static let deskFiles: Set<String> = ["GET /desk", "GET /desk/**", "GET /chat", "GET /chat/**"]

    @Test func theServerRegisters_everyEndpointOfTheTable_andNothingElse() async throws {
        try await withServer { server in
            let router = RecordingRouter()
            server.parley.addRoutes(to: router)
            let registered = router.routes.map { "\($0.method.rawValue) \($0.path)" }
            #expect(Set(registered).count == registered.count, "a route registered twice")
            // Both sides as Hummingbird prints a path (`/v1/conversations/{id}`).
            let table = Set(AnyEndpoint.all.map { "\($0.method.rawValue) \(RouterPath($0.template))" })
            #expect(table.count == AnyEndpoint.all.count)
            #expect(table.subtracting(registered).isEmpty, "in the table but not routed: \(table.subtracting(registered).sorted())")
            #expect(Set(registered).subtracting(table).subtracting(Self.deskFiles).isEmpty,
                    "routed but not in the table: \(Set(registered).subtracting(table).sorted())")
        }
    }

    @Test func everyEndpoint_answersFromItsRoute_notTheUnknownRoute404() async throws {
        try await withServer { server in
            // What an unknown path answers, to tell it apart from a route's own 404.
            let unknown = try await server.http.request("GET", "/v1/no-such-thing")
            #expect(unknown.status == 404 && unknown.error?.error.message == "not found")
            for endpoint in AnyEndpoint.all {
                let path = Self.path(endpoint.template)
                let reply = try await server.http.request(endpoint.method.rawValue, path, body: endpoint.method == .get ? nil : Data("{}".utf8))
                #expect(reply.status != 405, "\(endpoint) → 405")
                #expect(!(reply.status == 404 && reply.error?.error.message == "not found"), "\(endpoint) → unknown route")
            }
        }
    }

    /// The template with a well-formed value of the right kind for each parameter.
    static func path(_ template: String) -> String {
        template.split(separator: "/").map { segment -> String in
            switch segment {
            case ":id": ConversationID.generate().rawValue
            case ":app": AppID.generate().rawValue
            case ":queue": QueueID.generate().rawValue
            case ":agent": AgentID.generate().rawValue
            case ":visitor": VisitorID.generate().rawValue
            case ":response": CannedResponseID.generate().rawValue
            case ":kind": Form.Kind.preChat.rawValue
            default: String(segment)
            }
        }.reduce("") { $0 + "/" + $1 }
    }
}

/// A router that only writes down what is registered on it.
private final class RecordingRouter: RouterMethods {
    typealias Context = ParleyRequestContext
    private(set) var routes: [(method: HTTPRequest.Method, path: String)] = []

    @discardableResult
    func on<Responder: HTTPResponder>(_ path: RouterPath, method: HTTPRequest.Method, responder: Responder) -> Self
    where Responder.Context == Context {
        routes.append((method, path.description))
        return self
    }

    func add(middleware: any MiddlewareProtocol<Request, Response, Context>) -> Self { self }
}
