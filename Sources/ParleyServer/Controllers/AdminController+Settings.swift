import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// What an admin sets for the chat screens of an app and its sign-in: forms, appearance, business
/// hours, identity, masking.
extension AdminController {
    func addSettingsRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        // `?queue=` for one queue's form; without it, the app-wide one.
        router.on(.admin.form) { request, context in
            let (app, kind, queue) = try await administeredForm(request, context)
            guard let form = try await settings.form(kind, queue: queue, app: app) else { throw APIError.notFound("no such form") }
            return JSONResponse(form)
        }
        router.on(.admin.setForm) { request, context in
            let (app, kind, queue) = try await administeredForm(request, context)
            var form = try await request.decodeJSON(Form.self, context: context)
            guard form.kind == kind else { throw APIError.badRequest("kind: the form's kind must be \(kind.rawValue), as in the path") }
            form.queueID = queue
            try await settings.setForm(form, app: app)
            return JSONResponse(form)
        }
        router.on(.admin.deleteForm) { request, context -> Response in
            let (app, kind, queue) = try await administeredForm(request, context)
            try await settings.deleteForm(kind, queue: queue, app: app)
            return Response(status: .noContent)
        }

        router.on(.admin.appearance) { _, context in
            let app = try await administeredApp(context)
            return JSONResponse(try await settings.appearance(app: app))
        }
        router.on(.admin.tags) { _, context in
            JSONResponse(try await settings.tags(app: try await administeredApp(context)))
        }
        router.on(.admin.setTags) { request, context in
            let app = try await administeredApp(context)
            let list = try await request.decodeJSON(TagList.self, context: context)
            try await settings.setTags(list, app: app)
            hub.publish(list, app: app)
            await nodes.announce(.tagsChanged(app))
            return JSONResponse(list)
        }

        router.on(.admin.setAppearance) { request, context in
            let app = try await administeredApp(context)
            let appearance = try await request.decodeJSON(Appearance.self, context: context)
            try await settings.setAppearance(appearance, app: app)
            return JSONResponse(appearance)
        }

        router.on(.admin.identity) { _, context in
            JSONResponse(try await identity.settings(app: try await administeredApp(context)))
        }
        router.on(.admin.setIdentity) { request, context in
            let app = try await administeredApp(context)
            let settings = try await request.decodeJSON(IdentitySettings.self, context: context)
            try await identity.setSettings(settings, app: app)
            return JSONResponse(settings)
        }

        router.on(.admin.linkPolicy) { _, context in
            JSONResponse(try await settings.linkPolicy(app: try await administeredApp(context)))
        }
        router.on(.admin.setLinkPolicy) { request, context in
            let app = try await administeredApp(context)
            let policy = try await request.decodeJSON(LinkPolicy.self, context: context)
            try await settings.setLinkPolicy(policy, app: app)
            return JSONResponse(policy)
        }
        router.on(.admin.masking) { _, context in
            JSONResponse(try await masking.rules(app: try await administeredApp(context)))
        }
        router.on(.admin.setMasking) { request, context in
            let app = try await administeredApp(context)
            let rules = try await request.decodeJSON(MaskingRules.self, context: context)
            try await masking.setRules(rules, app: app)
            return JSONResponse(rules)
        }

        router.on(.admin.hours) { request, context -> Response in
            let (app, queue) = try await administeredQueue(context)
            // No hours: the queue is always open, a normal state answered 204 rather than 404.
            guard let hours = try await settings.hours(queue: queue, app: app) else { return Response(status: .noContent) }
            return try JSONResponse(hours).response(from: request, context: context)
        }
        router.on(.admin.setHours) { request, context in
            let (app, queue) = try await administeredQueue(context)
            let hours = try await request.decodeJSON(BusinessHours.self, context: context)
            try await settings.setHours(hours, queue: queue, app: app)
            return JSONResponse(hours)
        }
        router.on(.admin.deleteHours) { _, context -> Response in
            let (app, queue) = try await administeredQueue(context)
            try await settings.setHours(nil, queue: queue, app: app)
            return Response(status: .noContent)
        }
    }

    /// An app the caller administers, a form kind, and the queue named by `?queue=` (nil: app-wide).
    private func administeredForm(_ request: Request, _ context: ParleyRequestContext) async throws -> (AppID, Form.Kind, QueueID?) {
        let app = try await administeredApp(context)
        guard let kind = context.parameters.get("kind").flatMap(Form.Kind.init(rawValue:)) else {
            throw APIError.notFound("forms are pre_chat, unavailable or post_chat")
        }
        guard let text = request.uri.queryParameters.get("queue") else { return (app, kind, nil) }
        guard let queue = QueueID(validating: text), try await store.queues(app: app).contains(where: { $0.id == queue }) else {
            throw APIError.notFound("queue not found")
        }
        return (app, kind, queue)
    }

    /// An app the caller administers and one of its queues.
    private func administeredQueue(_ context: ParleyRequestContext) async throws -> (AppID, QueueID) {
        try await context.administeredQueue(in: store)
    }
}
