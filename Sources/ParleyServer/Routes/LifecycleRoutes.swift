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

        let admin = router.group("v1/admin")
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

    /// An app the caller administers and one of its queues.
    private func administeredQueue(_ request: Request, _ context: ParleyRequestContext) async throws -> (AppID, QueueID) {
        let app = try await administeredApp(request, context)
        guard let queue = context.parameters.get("queue").flatMap(QueueID.init(validating:)),
              try await store.queues(app: app).contains(where: { $0.id == queue })
        else { throw APIError.notFound("queue not found") }
        return (app, queue)
    }
}
