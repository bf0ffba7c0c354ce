import Foundation
import JWTKit
import ParleyCore
import ParleyStore

/// An app's push settings for its admins: provider keys checked (parsed, their URLs under the
/// outbound policy), sealed with the server's secrets key and never shown again; previews on or
/// off; the latest pushes with their attempts. Also seals a device's auth secret at registration.
struct PushService: Sendable {
    let store: any ParleyStore
    let secrets: SecretBox?
    let policy: OutboundPolicy
    let apps: KnownApps
    let clock: any WallClock

    func settings(app: AppID) async throws -> PushSettings {
        try await store.pushSettings(app: app)?.settings ?? PushSettings()
    }

    func setAPNs(_ request: APNsCredentialsRequest, app: AppID) async throws -> PushSettings {
        try request.check()
        do {
            _ = try ES256PrivateKey(pem: request.privateKey)
        } catch {
            throw APIError.badRequest("private_key: not a P-256 private key (Apple's .p8 file)")
        }
        let box = try requireSecrets()
        var stored = try await current(app)
        stored.sealedAPNsKey = try box.seal(request.privateKey)
        stored.settings.apns = PushSettings.APNs(teamID: request.teamID, keyID: request.keyID, topic: request.topic, updatedAt: clock.now())
        return try await save(stored)
    }

    func setFCM(_ request: FCMCredentialsRequest, app: AppID) async throws -> PushSettings {
        try request.check()
        let account = request.serviceAccount
        do {
            _ = try Insecure.RSA.PrivateKey(pem: account.privateKey)
        } catch {
            throw APIError.badRequest("service_account.private_key: not an RSA private key of 2048 bits or more")
        }
        if let uri = account.tokenURI, let url = URL(string: uri) {
            do {
                _ = try await policy.checkedAddress(url)
            } catch let error as OutboundError {
                throw APIError.badRequest("service_account.token_uri: \(error.description)")
            }
        }
        let box = try requireSecrets()
        var stored = try await current(app)
        stored.sealedFCMAccount = try box.seal(String(decoding: try ParleyJSON.encode(account), as: UTF8.self))
        stored.settings.fcm = PushSettings.FCM(projectID: account.projectID, clientEmail: account.clientEmail, updatedAt: clock.now())
        return try await save(stored)
    }

    func remove(_ provider: PushProvider, app: AppID) async throws -> PushSettings {
        var stored = try await current(app)
        switch provider {
        case .apns:
            stored.settings.apns = nil
            stored.sealedAPNsKey = nil
        case .fcm:
            stored.settings.fcm = nil
            stored.sealedFCMAccount = nil
        }
        return try await save(stored)
    }

    func update(_ request: UpdatePushSettingsRequest, app: AppID) async throws -> PushSettings {
        var stored = try await current(app)
        if let previews = request.previews { stored.settings.previews = previews }
        return try await save(stored)
    }

    func deliveries(app: AppID, limit: Int) async throws -> [PushDelivery] {
        try await store.outboxRows(kind: PushRule.kind, app: app, limit: limit).compactMap { record in
            guard let job = try? ParleyJSON.decode(PushJob.self, from: Data(record.row.payload.utf8)) else { return nil }
            return PushDelivery(
                id: record.row.id, deviceID: record.row.target, kind: job.kind, conversationID: record.row.conversationID, seq: job.seq,
                status: PushDelivery.Status(rawValue: record.status) ?? .pending, createdAt: record.row.createdAt, nextAttemptAt: record.nextAttemptAt,
                attempts: WebhookAttempt.numbered(record.attempts),
                lastError: record.lastError)
        }
    }

    /// A device's registration as stored: its auth secret sealed, when the server has a key (a
    /// sealed value starts `v1.`, which base64url never contains, so both read back).
    func sealed(_ request: PushDeviceRequest) throws -> PushDeviceRequest {
        guard let secrets, let keys = request.encryption else { return request }
        var sealed = request
        sealed.encryption = PushEncryptionKeys(publicKey: keys.publicKey, authSecret: try secrets.seal(keys.authSecret))
        return sealed
    }

    /// A stored auth secret, opened when it was sealed.
    static func openAuthSecret(_ stored: String, with secrets: SecretBox?) throws -> String {
        guard stored.hasPrefix("v1.") else { return stored }
        guard let secrets else { throw PushDeliveryError("no secrets key: the device's auth secret cannot be opened", permanent: true) }
        return try secrets.open(stored)
    }

    private func current(_ app: AppID) async throws -> StoredPushSettings {
        try await store.pushSettings(app: app)
            ?? StoredPushSettings(appID: app, settings: PushSettings(), sealedAPNsKey: nil, sealedFCMAccount: nil, updatedAt: clock.now())
    }

    private func save(_ stored: StoredPushSettings) async throws -> PushSettings {
        var stored = stored
        stored.updatedAt = clock.now()
        try await store.savePushSettings(stored)
        if stored.sealedAPNsKey != nil || stored.sealedFCMAccount != nil { apps.insert(stored.appID) }
        return stored.settings
    }

    private func requireSecrets() throws -> SecretBox {
        guard let secrets else {
            throw APIError.conflict("secrets_key_missing", "this server has no secrets key to seal push keys with (parleyd --secrets-key-file)")
        }
        return secrets
    }
}
