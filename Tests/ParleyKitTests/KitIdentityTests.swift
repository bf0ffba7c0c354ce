import Foundation
import ParleyCore
import ParleyKit
import ParleyKitNIO
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// ParleyKit with a verified identity against the real server: the same user on two devices, the
/// device's anonymous conversation brought along, and a user's files kept apart from the next user's.
@Suite("ParleyKit verified identity")
struct KitIdentityTests {
    static func client(_ server: TestServer, storage: URL, identity: ParleyConfiguration.Identity) -> ParleyClient {
        var configuration = ParleyConfiguration(serverURL: server.baseURL, appID: server.appID)
        configuration.storage = .directory(storage)
        configuration.identity = identity
        configuration.reconnectPolicy = KitHarness.fastPolicy
        return ParleyClient(configuration: configuration, transport: NIOWebSocketTransport())
    }

    @Test func signingIn_onTwoDevices_isOneUser_andBringsWhatTheDeviceWroteAnonymously() async throws {
        try await withServer { server in
            let reply = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/identity", IdentitySettings(acceptsIdentityHash: true),
                                                   token: server.adminToken)
            #expect(reply.status == 200)
            let harness = KitHarness(server: server)
            let phone = harness.storageDirectory(), tablet = harness.storageDirectory()
            defer { for folder in [phone, tablet] { try? FileManager.default.removeItem(at: folder) } }
            let hash = IdentityHash.make(userID: "user-5", secretKey: server.demo.app.secretKey)

            // Anonymous on the phone first.
            let anonymous = Self.client(server, storage: phone, identity: .anonymous)
            try await anonymous.start()
            let before = try await anonymous.openConversation(subject: "Before signing in")
            await anonymous.stop()

            let onPhone = Self.client(server, storage: phone, identity: .identityHash(userID: "user-5", hash: hash))
            try await onPhone.start()
            #expect(try await onPhone.conversations().map(\.id) == [before.id], "the phone's anonymous conversation is the user's now")
            let later = try await onPhone.openConversation(subject: "Signed in")
            await onPhone.stop()

            let onTablet = Self.client(server, storage: tablet, identity: .identityHash(userID: "user-5", hash: hash))
            try await onTablet.start()
            #expect(Set(try await onTablet.conversations().map(\.id)) == [before.id, later.id], "the same user on another device")
            await onTablet.stop()

            // Back to anonymous on the phone: the user's files are not the device's.
            let next = Self.client(server, storage: phone, identity: .anonymous)
            try await next.start()
            #expect(try await next.conversations().isEmpty, "the next person on the phone sees nothing of the user's")
            await next.stop()

            let wrong = Self.client(server, storage: harness.storageDirectory(), identity: .identityHash(userID: "user-6", hash: hash))
            try await wrong.start()
            await #expect(throws: ParleyError.self) { _ = try await wrong.conversations() }
            await wrong.stop()
        }
    }

    @Test func logout_revokesTheSession_andWipesTheUsersFilesButNotTheDevice() async throws {
        try await withServer { server in
            _ = try await server.http.send("PUT", "/v1/admin/apps/\(server.appID)/identity", IdentitySettings(acceptsIdentityHash: true),
                                           token: server.adminToken)
            let folder = KitHarness(server: server).storageDirectory()
            defer { try? FileManager.default.removeItem(at: folder) }
            let hash = IdentityHash.make(userID: "user-out", secretKey: server.demo.app.secretKey)
            let anonymous = Self.client(server, storage: folder, identity: .anonymous)
            try await anonymous.start()
            _ = try await anonymous.conversations()
            await anonymous.stop()
            let deviceID = try #require(try FileStorage(directory: folder).loadSecrets()?.deviceID)

            let user = Self.client(server, storage: folder, identity: .identityHash(userID: "user-out", hash: hash))
            try await user.start()
            let conversation = try await user.openConversation(subject: "private")
            _ = try await user.send("my account number is …", in: conversation.id)
            let userFolders = try FileManager.default.contentsOfDirectory(atPath: folder.appendingPathComponent("users").path)
            #expect(userFolders.count == 1)
            let userFolder = folder.appendingPathComponent("users").appendingPathComponent(userFolders[0])
            let token = try #require(try FileStorage(directory: userFolder).loadSecrets()?.token)

            try await user.logout()
            #expect(!FileManager.default.fileExists(atPath: userFolder.path), "the user's files are gone")
            #expect(try await server.http.request("GET", "/v1/conversations", token: token).status == 401, "the token is refused")
            #expect(try FileStorage(directory: folder).loadSecrets()?.deviceID == deviceID, "the device stays the device")

            let next = Self.client(server, storage: folder, identity: .anonymous)
            try await next.start()
            #expect(try await next.conversations().isEmpty)
            #expect(await next.state.conversations.isEmpty)
            try await next.logout()
            #expect(try FileStorage(directory: folder).loadSecrets() == StoredSecrets(deviceID: deviceID), "an anonymous sign-out keeps only the device id")
        }
    }
}
