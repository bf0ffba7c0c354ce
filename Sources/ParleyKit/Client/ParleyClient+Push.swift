import Foundation
import ParleyCore

extension ParleyClient {
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
    ///   - encryption: the device's keys, for pushes the providers cannot read (recommended; keep
    ///     them for the Notification Service Extension, ``PushKeys/rawRepresentation``).
    /// - Returns: the registration as the server stored it.
    @discardableResult
    public func setPushToken(_ pushToken: String, provider: PushProvider, environment: APNsEnvironment? = nil,
                             encryption: PushKeys? = nil, locale: String? = nil) async throws -> PushDevice {
        let request = PushDeviceRequest(
            provider: provider, token: pushToken, environment: provider == .apns ? (environment ?? .production) : nil,
            encryption: encryption.map { PushEncryptionKeys(publicKey: $0.publicKey, authSecret: $0.authSecretText) }, locale: locale)
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
    ///   - encryption: the device's keys, for pushes the providers cannot read.
    @discardableResult
    public func setPushToken(apnsDeviceToken: Data, environment: APNsEnvironment = .production, encryption: PushKeys? = nil) async throws -> PushDevice {
        try await setPushToken(apnsDeviceToken.hexString, provider: .apns,
                               environment: environment, encryption: encryption)
    }

    /// Push turned off on this device: the server forgets its token. ``logout()`` does this too.
    public func disablePush() async throws {
        try await http.call(.push.unregister(DeviceIDParameter(try pushDeviceID())), token: try await token(renew: false))
    }
}
