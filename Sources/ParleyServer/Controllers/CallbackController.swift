import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore
import ParleyStore

/// Callback requests: the visitor's routes in Parley's form and in Genesys Mobile Services' form,
/// the agent's outcome, and the admins' settings (docs/protocol.md "Callbacks").
struct CallbackController {
    let callbacks: CallbackService
    let settings: AppSettings
    let store: any ParleyStore
    /// True when the server serves TLS itself (its URLs are https).
    let servesTLS: Bool

    static let visitorsOnly = APIError.forbidden("callback requests are made by visitors")

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.callbacks.request) { request, context in
            let visitor = try context.requireVisitor(else: Self.visitorsOnly)
            let body = try await request.decodeJSON(RequestCallbackRequest.self, context: context)
            return JSONResponse(try await callbacks.request(body, by: visitor), status: .created)
        }
        router.on(.callbacks.get) { _, context in
            let visitor = try context.requireVisitor(else: Self.visitorsOnly)
            return JSONResponse(try await callbacks.view(try callbackID(context), by: visitor))
        }
        router.on(.callbacks.dialog) { _, context in
            let visitor = try context.requireVisitor(else: Self.visitorsOnly)
            return JSONResponse(try await callbacks.view(try callbackID(context), by: visitor).dialog)
        }
        router.on(.callbacks.perform) { _, context in
            let visitor = try context.requireVisitor(else: Self.visitorsOnly)
            guard let action = context.parameters.get("action").flatMap(CallbackAction.init(rawValue:)) else {
                throw APIError.notFound("the actions are \(CallbackAction.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            return JSONResponse(try await callbacks.perform(action, on: try callbackID(context), by: visitor))
        }
        router.on(.callbacks.genesys) { request, context -> Response in
            let visitor = try context.requireVisitor(else: Self.visitorsOnly)
            guard let action = context.parameters.get("action").flatMap(GenesysCallbackAction.init(rawValue:)) else {
                throw APIError.notFound("the actions are \(GenesysCallbackAction.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            let dialog = try await callbacks.perform(action.action, on: try callbackID(context), by: visitor)
            let base = Self.origin(of: request, servesTLS: servesTLS)
            let genesys = GenesysDialog(dialog, serviceBase: base + "/genesys/1/service", realtimeURL: Self.realtimeURL(base),
                                        user: visitor.visitorID.rawValue)
            var headers = HTTPFields()
            headers[.contentType] = "application/json"
            headers[.cacheControl] = "no-store"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: try ParleyJSON.encode(genesys))))
        }
        router.on(.callbacks.outcome) { request, context in
            let agent = try context.requireAgent()
            let body = try await request.decodeJSON(CallbackOutcomeRequest.self, context: context)
            return JSONResponse(try await callbacks.recordOutcome(body, conversation: try context.conversationID(), by: agent))
        }

        router.on(.callbacks.settings) { _, context in
            let (app, queue) = try await context.administeredQueue(in: store)
            return JSONResponse(try await settings.callbackSettings(queue: queue, app: app))
        }
        router.on(.callbacks.setSettings) { request, context in
            let (app, queue) = try await context.administeredQueue(in: store)
            let body = try await request.decodeJSON(CallbackSettings.self, context: context)
            try await settings.setCallbackSettings(body, queue: queue, app: app)
            return JSONResponse(try await settings.callbackSettings(queue: queue, app: app))
        }
        router.on(.callbacks.texts) { _, context in
            JSONResponse(try await settings.callbackTexts(app: try await context.administeredApp(in: store)))
        }
        router.on(.callbacks.setTexts) { request, context in
            let app = try await context.administeredApp(in: store)
            let body = try await request.decodeJSON(CallbackTextOverrides.self, context: context)
            try await settings.setCallbackTexts(body, app: app)
            return JSONResponse(try await settings.callbackTexts(app: app))
        }
    }

    private func callbackID(_ context: ParleyRequestContext) throws -> CallbackID {
        try context.identifier("id", notFound: "callback request not found")
    }

    /// `scheme://host` as the app reached this server (Genesys' dialogs carry absolute URLs):
    /// https behind a proxy that says so, or when the server serves TLS itself.
    static func origin(of request: Request, servesTLS: Bool) -> String {
        let forwarded = request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased()
        let scheme = forwarded == "https" || servesTLS ? "https" : "http"
        return "\(scheme)://\(request.head.authority ?? "localhost")"
    }

    /// The realtime socket's URL for an origin (`ws://` or `wss://`).
    static func realtimeURL(_ origin: String) -> String {
        (origin.hasPrefix("https://") ? "wss://" + origin.dropFirst(8) : "ws://" + origin.dropFirst(7)) + "/v1/realtime"
    }
}
