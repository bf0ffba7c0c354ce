import Foundation
import Hummingbird
import ParleyCore
import ParleyStore

/// The visitor's devices that receive pushes: registered with the app's push token (Pyrus'
/// `setPushToken`), removed when push is turned off or the visitor logs out (Unblu).
struct PushDeviceController {
    let store: any ParleyStore
    let push: PushService
    let clock: any WallClock

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.push.register) { request, context in
            let visitor = try context.requireVisitor(else: .forbidden("push devices are a visitor's"))
            let device = try deviceID(context)
            let body = try await request.decodeJSON(PushDeviceRequest.self, context: context)
            try body.check()
            let now = clock.now()
            // The auth secret is kept sealed: with the database alone, nobody reads the pushes.
            let stored = try await store.registerPushDevice(PushDeviceRecord(
                appID: visitor.appID, visitorID: visitor.visitorID, deviceID: device, request: try push.sealed(body), createdAt: now, updatedAt: now))
            return JSONResponse(stored.device)
        }

        router.on(.push.unregister) { _, context in
            let visitor = try context.requireVisitor(else: .forbidden("push devices are a visitor's"))
            _ = try await store.removePushDevice(try deviceID(context), visitor: visitor.visitorID, app: visitor.appID)
            return Response(status: .noContent)
        }

        router.on(.push.devices) { _, context in
            let visitor = try context.requireVisitor(else: .forbidden("push devices are a visitor's"))
            return JSONResponse(PushDeviceList(devices: try await store.pushDevices(visitor: visitor.visitorID, app: visitor.appID).map(\.device)))
        }
    }

    /// The `:device` of the path, checked like the device id of a visitor session.
    private func deviceID(_ context: ParleyRequestContext) throws -> String {
        let device = context.parameters.get("device") ?? ""
        try Validation.deviceID(device)
        return device
    }
}
