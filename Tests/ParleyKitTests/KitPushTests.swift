import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO
import ParleyServer
import ParleyStore
import ParleyTestSupport
import Testing

/// ParleyKit registering the device for pushes against the real server: the token bound to the
/// visitor and the device, replaced, refused when malformed, and gone when push is turned off or
/// the visitor logs out.
@Suite("ParleyKit push devices")
struct KitPushTests {
    @Test func setPushToken_registersTheDevice_disableAndLogoutRemoveIt() async throws {
        try await withServer { server in
            let harness = KitHarness(server: server)
            let storage = harness.storageDirectory()
            defer { try? FileManager.default.removeItem(at: storage) }
            let client = harness.visitor(storage: storage)
            try await client.start()
            let deviceID = try #require(try FileStorage(directory: storage).loadSecrets()).deviceID
            let session = try await server.visitor(deviceID)
            let token = session.token
            func devices() async throws -> [PushDevice] {
                try await server.http.get("/v1/push/devices", token: token, as: PushDeviceList.self).devices
            }

            let keys = PushKeys()
            let apnsToken = Data((0..<32).map { UInt8($0) })
            let registered = try await client.setPushToken(apnsDeviceToken: apnsToken, environment: .sandbox, encryption: .keys(keys))
            #expect(registered.deviceID == deviceID && registered.provider == .apns && registered.environment == .sandbox && registered.encrypted)
            #expect(try await devices() == [registered])

            // What the server stored is what the app gave: the hex token and the device's public key;
            // the auth secret is sealed with the server's secrets key.
            let stored = try #require(try await server.store.pushDevices(visitor: session.visitor.id, app: server.appID).first)
            #expect(stored.request.token == apnsToken.map { String(format: "%02x", $0) }.joined())
            #expect(stored.request.encryption?.publicKey == keys.publicKey)
            let sealed = try #require(stored.request.encryption?.authSecret)
            #expect(sealed.hasPrefix("v1.") && sealed != keys.authSecretText)
            #expect(try SecretBox(key: Data(repeating: 9, count: 32)).open(sealed) == keys.authSecretText)

            // Replaced by an FCM token in the clear; a malformed one is refused on the device.
            let fcm = try await client.setPushToken("fcm:APA91bHun4MxP5egoKMwt2KZFBaFUH-1RYqx", provider: .fcm, encryption: .none)
            #expect(try await devices() == [fcm] && !fcm.encrypted)
            await #expect(throws: ParleyError.self) { try await client.setPushToken("not hex", provider: .apns) }
            let refused = try await server.http.send("PUT", "/v1/push/devices/\(deviceID)", PushDeviceRequest(provider: .apns, token: "zz"), token: token)
            #expect(refused.status == 400)
            #expect(try await devices() == [fcm])

            // Agents cannot register devices.
            let agent = try await server.agent(name: "Grace")
            #expect(try await server.http.send("PUT", "/v1/push/devices/\(deviceID)", PushDeviceRequest(provider: .fcm, token: "fcm-token-0123456789abcdef"),
                                               token: agent.token).status == 403)

            try await client.disablePush()
            #expect(try await devices().isEmpty)

            // Encrypted by default, with the install's own keys, kept across a restart of the client.
            let byDefault = try await client.setPushToken(apnsDeviceToken: apnsToken)
            #expect(byDefault.encrypted)
            #expect(try await devices().count == 1)
            let deviceKeys = try await client.devicePushKeys()
            let storedDefault = try #require(try await server.store.pushDevices(visitor: session.visitor.id, app: server.appID).first)
            #expect(storedDefault.request.encryption?.publicKey == deviceKeys.publicKey)
            await client.stop()
            let restarted = harness.visitor(storage: storage)
            try await restarted.start()
            #expect(try await restarted.devicePushKeys().rawRepresentation == deviceKeys.rawRepresentation)
            try await restarted.logout()
            let after = try await server.visitor(deviceID).token
            #expect(try await server.http.get("/v1/push/devices", token: after, as: PushDeviceList.self).devices.isEmpty,
                    "logging out stops the device's pushes")
        }
    }
}
