import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

extension ParleyServer {
    /// What a chat screen needs before a conversation starts: the app's appearance and whether a
    /// queue is open. Admins set both under `/v1/admin/apps/:app`.
    func addLifecycleRoutes(to router: Router<ParleyRequestContext>) {
        router.get("v1/appearance") { request, _ in
            let app = try await self.appOfCaller(request)
            return JSONResponse(try await self.settings.appearance(app: app))
        }

        // `?queue=que_…` (default: the app's first queue).
        router.get("v1/availability") { request, _ in
            let app = try await self.appOfCaller(request)
            let queue = try request.uri.queryParameters.get("queue").map { text in
                guard let id = QueueID(validating: text) else { throw APIError.notFound("queue not found") }
                return id
            }
            return JSONResponse(try await self.availability.report(app: app, queue: queue).report)
        }

        // The forms a queue's chat shows (`?queue=`, default the app's first queue).
        router.get("v1/forms") { request, _ in
            let app = try await self.appOfCaller(request)
            let queue = try await self.queueOfApp(app, request.uri.queryParameters.get("queue"))
            return JSONResponse(try await self.settings.forms(app: app, queue: queue))
        }

        router.put("v1/conversations/:id/forms/post_chat") { request, context in
            guard case .visitor(let visitor) = try await self.authenticator.caller(of: request) else {
                throw APIError.forbidden("only the conversation's visitor answers its post-chat form")
            }
            let body = try await request.decodeJSON(SubmitFormRequest.self, context: context)
            return JSONResponse(try await self.conversations.submitPostChat(try Self.conversationID(context), body, by: visitor))
        }

        router.get("v1/conversations/:id/forms") { request, context in
            let caller = try await self.authenticator.caller(of: request)
            return JSONResponse(FormSubmissionList(submissions: try await self.conversations.formSubmissions(try Self.conversationID(context), caller: caller)))
        }

        let admin = router.group("v1/admin")

        // `?queue=` for one queue's form; without it, the app-wide one.
        admin.get("apps/:app/forms/:kind") { request, context in
            let (app, kind, queue) = try await self.administeredForm(request, context)
            guard let form = try await self.settings.form(kind, queue: queue, app: app) else { throw APIError.notFound("no such form") }
            return JSONResponse(form)
        }
        admin.put("apps/:app/forms/:kind") { request, context in
            let (app, kind, queue) = try await self.administeredForm(request, context)
            var form = try await request.decodeJSON(Form.self, context: context)
            guard form.kind == kind else { throw APIError.badRequest("kind: the form's kind must be \(kind.rawValue), as in the path") }
            form.queueID = queue
            try await self.settings.setForm(form, app: app)
            return JSONResponse(form)
        }
        admin.delete("apps/:app/forms/:kind") { request, context -> Response in
            let (app, kind, queue) = try await self.administeredForm(request, context)
            try await self.settings.deleteForm(kind, queue: queue, app: app)
            return Response(status: .noContent)
        }

        admin.get("apps/:app/appearance") { request, context in
            let app = try await self.administeredApp(request, context)
            return JSONResponse(try await self.settings.appearance(app: app))
        }
        admin.put("apps/:app/appearance") { request, context in
            let app = try await self.administeredApp(request, context)
            let appearance = try await request.decodeJSON(Appearance.self, context: context)
            try await self.settings.setAppearance(appearance, app: app)
            return JSONResponse(appearance)
        }

        admin.get("apps/:app/queues/:queue/hours") { request, context in
            let (app, queue) = try await self.administeredQueue(request, context)
            guard let hours = try await self.settings.hours(queue: queue, app: app) else {
                throw APIError.notFound("no business hours: the queue is always open")
            }
            return JSONResponse(hours)
        }
        admin.put("apps/:app/queues/:queue/hours") { request, context in
            let (app, queue) = try await self.administeredQueue(request, context)
            let hours = try await request.decodeJSON(BusinessHours.self, context: context)
            try await self.settings.setHours(hours, queue: queue, app: app)
            return JSONResponse(hours)
        }
        admin.delete("apps/:app/queues/:queue/hours") { request, context -> Response in
            let (app, queue) = try await self.administeredQueue(request, context)
            try await self.settings.setHours(nil, queue: queue, app: app)
            return Response(status: .noContent)
        }
    }

    /// The app of a visitor or agent caller (the operator has none).
    private func appOfCaller(_ request: Request) async throws -> AppID {
        guard let app = try await authenticator.caller(of: request).appID else { throw APIError.forbidden("visitors and agents only") }
        return app
    }

    /// A queue of the app by id, or the app's first queue when none is given.
    private func queueOfApp(_ app: AppID, _ text: String?) async throws -> QueueID {
        let queues = try await store.queues(app: app)
        if let text {
            guard let id = QueueID(validating: text), queues.contains(where: { $0.id == id }) else { throw APIError.notFound("queue not found") }
            return id
        }
        guard let first = queues.first else { throw APIError.conflict("no_queue", "the app has no queue yet") }
        return first.id
    }

    /// An app the caller administers, a form kind, and the queue named by `?queue=` (nil: app-wide).
    private func administeredForm(_ request: Request, _ context: ParleyRequestContext) async throws -> (AppID, Form.Kind, QueueID?) {
        let app = try await administeredApp(request, context)
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
    private func administeredQueue(_ request: Request, _ context: ParleyRequestContext) async throws -> (AppID, QueueID) {
        let app = try await administeredApp(request, context)
        guard let queue = context.parameters.get("queue").flatMap(QueueID.init(validating:)),
              try await store.queues(app: app).contains(where: { $0.id == queue })
        else { throw APIError.notFound("queue not found") }
        return (app, queue)
    }
}
