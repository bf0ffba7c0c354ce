import Foundation
import ParleyCore

/// A visitor's device registered for pushes, as stored.
public struct PushDeviceRecord: Sendable, Hashable {
    public var appID: AppID
    public var visitorID: VisitorID
    public var deviceID: String
    public var request: PushDeviceRequest
    public var createdAt: Date
    public var updatedAt: Date

    public init(appID: AppID, visitorID: VisitorID, deviceID: String, request: PushDeviceRequest, createdAt: Date, updatedAt: Date) {
        self.appID = appID
        self.visitorID = visitorID
        self.deviceID = deviceID
        self.request = request
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    /// What the server answers about it (no secret).
    public var device: PushDevice {
        PushDevice(deviceID: deviceID, provider: request.provider, environment: request.environment,
                   encrypted: request.encryption != nil, locale: request.locale, updatedAt: updatedAt)
    }
}

/// The devices pushes go to.
public protocol PushDeviceStore: Sendable {
    /// Registers a device of a visitor, replacing its earlier registration. A token is one
    /// device's: registering it again (another visitor signed in on the same phone) moves it, so
    /// the earlier visitor's pushes stop reaching that phone. Returns the stored record (its
    /// `createdAt` kept from the first registration of the device).
    /// Throws ``StoreError/notFound(_:)`` when the visitor is not the app's.
    func registerPushDevice(_ record: PushDeviceRecord) async throws -> PushDeviceRecord
    /// Removes a visitor's device; false when it was not registered.
    func removePushDevice(_ deviceID: String, visitor: VisitorID, app: AppID) async throws -> Bool
    /// Removes a token the provider said is gone (APNs 410, FCM `UNREGISTERED`).
    func removePushToken(_ token: String, provider: PushProvider, app: AppID) async throws
    /// A visitor's registered devices, oldest first.
    func pushDevices(visitor: VisitorID, app: AppID) async throws -> [PushDeviceRecord]
}

/// An app's push settings as stored: what admins see, and the provider keys sealed with the
/// server's secrets key (never in clear).
public struct StoredPushSettings: Sendable, Hashable {
    public var appID: AppID
    public var settings: PushSettings
    /// The APNs `.p8` key's PEM, sealed.
    public var sealedAPNsKey: String?
    /// The whole Firebase service account JSON, sealed.
    public var sealedFCMAccount: String?
    public var updatedAt: Date

    public init(appID: AppID, settings: PushSettings, sealedAPNsKey: String?, sealedFCMAccount: String?, updatedAt: Date) {
        self.appID = appID
        self.settings = settings
        self.sealedAPNsKey = sealedAPNsKey
        self.sealedFCMAccount = sealedFCMAccount
        self.updatedAt = updatedAt
    }
}

/// What push delivery reads besides the devices (migration `0015-push-settings`).
public protocol PushDeliveryStore: Sendable {
    /// An app's push settings, or nil when none were ever saved.
    func pushSettings(app: AppID) async throws -> StoredPushSettings?
    /// Saves an app's push settings, replacing what was there.
    /// Throws ``StoreError/notFound(_:)`` when the app does not exist.
    func savePushSettings(_ settings: StoredPushSettings) async throws
    /// The apps with a provider key (what the server's push rule consults before it adds rows to a commit).
    func pushApps() async throws -> Set<AppID>
    /// One registered device of an app, or nil.
    func pushDevice(_ deviceID: String, app: AppID) async throws -> PushDeviceRecord?
    /// The agents' and the system's messages and pushed pages the visitor has not read, across the
    /// visitor's conversations (the app icon's badge).
    func unreadCount(visitor: VisitorID, app: AppID) async throws -> Int
}
