import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// `/v1/admin/apps/:app/webhooks…`: an app's webhook endpoints and deliveries, for its admins and
/// the operator (docs/protocol.md "Webhooks").
struct WebhookController {
    let webhooks: WebhookService
    let store: any ParleyStore

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.webhooks.list) { _, context in
            let app = try await context.administeredApp(in: store)
            return JSONResponse(WebhookEndpointList(webhooks: try await webhooks.list(app: app)))
        }
        router.on(.webhooks.create) { request, context in
            let app = try await context.administeredApp(in: store)
            let body = try await request.decodeJSON(CreateWebhookRequest.self, context: context)
            return JSONResponse(try await webhooks.create(body, app: app), status: .created)
        }
        router.on(.webhooks.get) { _, context in
            let (app, id) = try await endpoint(context)
            return JSONResponse(try await webhooks.endpoint(id, app: app).endpoint)
        }
        router.on(.webhooks.update) { request, context in
            let (app, id) = try await endpoint(context)
            let body = try await request.decodeJSON(UpdateWebhookRequest.self, context: context)
            return JSONResponse(try await webhooks.update(id, body, app: app))
        }
        router.on(.webhooks.delete) { _, context -> Response in
            let (app, id) = try await endpoint(context)
            try await webhooks.delete(id, app: app)
            return Response(status: .noContent)
        }
        router.on(.webhooks.rotateSecret) { _, context in
            let (app, id) = try await endpoint(context)
            return JSONResponse(try await webhooks.rotateSecret(id, app: app))
        }
        router.on(.webhooks.enable) { _, context in
            let (app, id) = try await endpoint(context)
            return JSONResponse(try await webhooks.setEnabled(id, true, app: app))
        }
        router.on(.webhooks.deliveries) { request, context in
            let (app, id) = try await endpoint(context)
            let limit = Int(try request.optionalInteger("limit", range: 1...200) ?? 50)
            return JSONResponse(WebhookDeliveryList(deliveries: try await webhooks.deliveries(id, app: app, limit: limit)))
        }
        router.on(.webhooks.resend) { _, context in
            let (app, id) = try await endpoint(context)
            guard let delivery = context.parameters.get("delivery"), delivery.count <= 200 else { throw APIError.notFound("delivery not found") }
            return JSONResponse(try await webhooks.resend(delivery, endpoint: id, app: app), status: .accepted)
        }
    }

    /// The administered app and its endpoint named by `:webhook`.
    private func endpoint(_ context: ParleyRequestContext) async throws -> (AppID, WebhookEndpointID) {
        let app = try await context.administeredApp(in: store)
        let id: WebhookEndpointID = try context.identifier("webhook", notFound: "webhook not found")
        return (app, id)
    }
}
