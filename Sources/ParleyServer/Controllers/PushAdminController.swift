import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// `/v1/admin/apps/:app/push…`: an app's push providers, previews and deliveries, for its admins
/// and the operator (docs/protocol.md "Push").
struct PushAdminController {
    let push: PushService
    let store: any ParleyStore

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.push.settings) { _, context in
            JSONResponse(try await push.settings(app: try await context.administeredApp(in: store)))
        }
        router.on(.push.updateSettings) { request, context in
            let app = try await context.administeredApp(in: store)
            return JSONResponse(try await push.update(try await request.decodeJSON(UpdatePushSettingsRequest.self, context: context), app: app))
        }
        router.on(.push.setAPNs) { request, context in
            let app = try await context.administeredApp(in: store)
            return JSONResponse(try await push.setAPNs(try await request.decodeJSON(APNsCredentialsRequest.self, context: context), app: app))
        }
        router.on(.push.removeAPNs) { _, context in
            JSONResponse(try await push.remove(.apns, app: try await context.administeredApp(in: store)))
        }
        router.on(.push.setFCM) { request, context in
            let app = try await context.administeredApp(in: store)
            return JSONResponse(try await push.setFCM(try await request.decodeJSON(FCMCredentialsRequest.self, context: context), app: app))
        }
        router.on(.push.removeFCM) { _, context in
            JSONResponse(try await push.remove(.fcm, app: try await context.administeredApp(in: store)))
        }
        router.on(.push.deliveries) { request, context in
            let app = try await context.administeredApp(in: store)
            let limit = Int(try request.optionalInteger("limit", range: 1...200) ?? 50)
            return JSONResponse(PushDeliveryList(deliveries: try await push.deliveries(app: app, limit: limit)))
        }
    }
}
