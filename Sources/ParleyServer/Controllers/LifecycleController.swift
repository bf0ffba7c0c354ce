import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// What a chat screen needs before a conversation starts: the app's appearance, whether a queue is
/// open, its forms, and what it masks. Admins set them with the routes of `AdminController+Settings.swift`.
struct LifecycleController {
    let settings: AppSettings
    let availability: AvailabilityService
    let masking: MaskingService
    let store: any ParleyStore

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.lifecycle.appearance) { _, context in
            let app = try context.requireAppOfCaller()
            return JSONResponse(try await settings.appearance(app: app))
        }

        // Which links open inside the chat view (the chat page and ParleyKit decide with it).
        router.on(.lifecycle.linkPolicy) { _, context in
            JSONResponse(try await settings.linkPolicy(app: try context.requireAppOfCaller()))
        }

        // What ParleyKit masks on the device before a text leaves it (the server masks again).
        router.on(.lifecycle.masking) { _, context in
            JSONResponse(try await masking.rules(app: try context.requireAppOfCaller()))
        }

        // `?queue=que_…` (default: the app's first queue).
        router.on(.lifecycle.availability) { request, context in
            let app = try context.requireAppOfCaller()
            let queue = try request.uri.queryParameters.get("queue").map { text in
                guard let id = QueueID(validating: text) else { throw APIError.notFound("queue not found") }
                return id
            }
            return JSONResponse(try await availability.report(app: app, queue: queue).report)
        }

        // The forms a queue's chat shows (`?queue=`, default the app's first queue).
        router.on(.lifecycle.forms) { request, context in
            let app = try context.requireAppOfCaller()
            let queue = try await queueOfApp(app, request.uri.queryParameters.get("queue"))
            return JSONResponse(try await settings.forms(app: app, queue: queue))
        }
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
}
