import Foundation
import ParleyCore
import ParleyStore
import Testing

// MARK: - Push devices

extension StoreConformance {
    static func pushDevices_registerReplaceMoveAndRemove_perAppAndVisitor(_ store: any ParleyStore) async throws {
        let fixture = try await Fixture.make(store)
        let app = fixture.app.id
        let apns = PushDeviceRequest(provider: .apns, token: String(repeating: "ab", count: 32), environment: .sandbox,
                                     encryption: PushEncryptionKeys(publicKey: "BCVxsr7N_eNgVRqvHtD0zTZsEc6-VV-JvLexhqUzORcxaOzi6-AYWXvTBHm4bjyPjs7Vd8pZGH6SRpkNtoIAiw4",
                                                                    authSecret: "BTBZMqHH6r4Tts7J_aSIgg"), locale: "de")
        func record(_ device: String, _ request: PushDeviceRequest, visitor: VisitorID? = nil) -> PushDeviceRecord {
            let now = fixture.clock.next()
            return PushDeviceRecord(appID: app, visitorID: visitor ?? fixture.visitor.id, deviceID: device, request: request, createdAt: now, updatedAt: now)
        }

        let first = try await store.registerPushDevice(record("phone", apns))
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: app) == [first])
        #expect(first.device.encrypted && first.device.environment == .sandbox)

        // A new token for the same device replaces the row and keeps when it was first registered.
        var renewed = apns
        renewed.token = String(repeating: "cd", count: 32)
        let second = try await store.registerPushDevice(record("phone", renewed))
        #expect(second.createdAt == first.createdAt && second.request.token == renewed.token)
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: app).map(\.request.token) == [renewed.token])

        // The token registered from another device (another visitor signed in on the phone): it moves.
        let fcm = PushDeviceRequest(provider: .fcm, token: "fcm-token-0123456789abcdef")
        _ = try await store.registerPushDevice(record("tablet", fcm))
        _ = try await store.registerPushDevice(record("tablet-2", renewed, visitor: fixture.otherVisitor.id))
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: app).map(\.deviceID) == ["tablet"])
        #expect(try await store.pushDevices(visitor: fixture.otherVisitor.id, app: app).map(\.deviceID) == ["tablet-2"])

        // Another app sees nothing and cannot register this app's visitor.
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: fixture.otherApp.id).isEmpty)
        var foreign = record("x", fcm)
        foreign.appID = fixture.otherApp.id
        await expectStoreError(.notFound) { _ = try await store.registerPushDevice(foreign) }

        // Removal: only the visitor's own device; a token the provider dropped, wherever it is.
        #expect(try await store.removePushDevice("tablet", visitor: fixture.otherVisitor.id, app: app) == false)
        #expect(try await store.removePushDevice("tablet", visitor: fixture.visitor.id, app: app))
        #expect(try await store.pushDevices(visitor: fixture.visitor.id, app: app).isEmpty)
        try await store.removePushToken(renewed.token, provider: .apns, app: app)
        #expect(try await store.pushDevices(visitor: fixture.otherVisitor.id, app: app).isEmpty)
    }
}
