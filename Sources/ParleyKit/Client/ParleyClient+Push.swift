import Foundation
import ParleyCore

/// How pushes to this device are sealed (Unblu's `.encrypted` mode is the default).
public enum PushEncryption: Sendable {
    /// With this install's own keys, made on first use and kept with the device id:
    /// ``ParleyClient/devicePushKeys()``. The default.
    case deviceKeys
    /// With keys the app keeps itself, for instance in a Keychain group its Notification Service
    /// Extension shares.
    case keys(PushKeys)
    /// In the clear: Apple or Google can read what the notification says.
    case none
}

extension ParleyClient {
    /// This install's keys for encrypted pushes, the ones ``PushEncryption/deviceKeys`` registers:
    /// hand ``PushKeys/rawRepresentation`` to the Notification Service Extension (a shared Keychain
    /// group) so that it can call ``ParleyPush/decryptNotification(_:keys:)``. Made on first use;
    /// ``logout()`` forgets them with the rest of the device's session.
    /// - Throws: ``ParleyError/stopped`` before ``start()``.
    public func devicePushKeys() async throws -> PushKeys {
        try storedPushKeys()
    }

    /// Registers this device's push token for the visitor (Pyrus' `setPushToken`): when an agent
    /// answers and the app has no live connection, the server pushes to it. Call it whenever the
    /// system hands the app a token (they change); it replaces the earlier one.
    ///
    /// - Parameters:
    ///   - pushToken: the FCM registration token, or the APNs device token as hex (see
    ///     ``setPushToken(apnsDeviceToken:environment:encryption:)`` for the `Data` form).
    ///   - provider: who carries the pushes: APNs or FCM.
    ///   - environment: APNs only: `.sandbox` for debug builds (default `.production`).
    ///   - locale: the language of the notification texts (default: the app's).
    ///   - encryption: how pushes are sealed so the providers cannot read them: by default with the
    ///     install's own keys (``devicePushKeys()``, which the Notification Service Extension needs);
    ///     `.none` for pushes in the clear.
    /// - Returns: the registration as the server stored it.
    @discardableResult
    public func setPushToken(_ pushToken: String, provider: PushProvider, environment: APNsEnvironment? = nil,
                             encryption: PushEncryption = .deviceKeys, locale: String? = nil) async throws -> PushDevice {
        let keys: PushKeys?
        switch encryption {
        case .deviceKeys: keys = try storedPushKeys()
        case .keys(let given): keys = given
        case .none: keys = nil
        }
        let request = PushDeviceRequest(
            provider: provider, token: pushToken, environment: provider == .apns ? (environment ?? .production) : nil,
            encryption: keys.map { PushEncryptionKeys(publicKey: $0.publicKey, authSecret: $0.authSecretText) }, locale: locale)
        do {
            try request.check()
        } catch {
            throw ParleyError.invalidInput(error.description)
        }
        return try await http.call(.push.register(DeviceIDParameter(try pushDeviceID())), body: request, token: try await token(renew: false))
    }

    /// Registers the APNs device token as iOS hands it over (`didRegisterForRemoteNotificationsWithDeviceToken`).
    /// - Parameters:
    ///   - apnsDeviceToken: the token's bytes.
    ///   - environment: `.sandbox` for debug builds.
    ///   - encryption: how pushes are sealed (default: the install's own keys).
    @discardableResult
    public func setPushToken(apnsDeviceToken: Data, environment: APNsEnvironment = .production,
                             encryption: PushEncryption = .deviceKeys) async throws -> PushDevice {
        try await setPushToken(apnsDeviceToken.hexString, provider: .apns,
                               environment: environment, encryption: encryption)
    }

    /// Push turned off on this device: the server forgets its token. ``logout()`` does this too.
    public func disablePush() async throws {
        try await http.call(.push.unregister(DeviceIDParameter(try pushDeviceID())), token: try await token(renew: false))
    }
}
