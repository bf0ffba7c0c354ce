import Foundation

extension Endpoint {
    /// The visitor's devices that receive pushes.
    public static var push: PushEndpoints { PushEndpoints() }
}

/// The push device endpoints (docs/protocol.md "Push devices"). `:device` is the device id the
/// visitor's session was made with.
public struct PushEndpoints: Sendable {
    /// `PUT /v1/push/devices/:device`: registers (or replaces) the device's push token.
    public var register: Endpoint<PushDeviceRequest, PushDevice> { .init(.put, "/v1/push/devices/:device") }
    /// `DELETE /v1/push/devices/:device`: push turned off on the device; 204 whether it was registered or not.
    public var unregister: Endpoint<Void, Void> { .init(.delete, "/v1/push/devices/:device") }
    /// `GET /v1/push/devices`: the visitor's registered devices.
    public var devices: Endpoint<Void, PushDeviceList> { .init(.get, "/v1/push/devices") }

    /// `GET /v1/admin/apps/:app/push`: which providers are set up (never their keys), and previews.
    public var settings: Endpoint<Void, PushSettings> { .init(.get, "/v1/admin/apps/:app/push") }
    /// `PATCH /v1/admin/apps/:app/push`: previews on or off.
    public var updateSettings: Endpoint<UpdatePushSettingsRequest, PushSettings> { .init(.patch, "/v1/admin/apps/:app/push") }
    /// `PUT /v1/admin/apps/:app/push/apns`: the APNs key (sealed at rest, never shown again).
    public var setAPNs: Endpoint<APNsCredentialsRequest, PushSettings> { .init(.put, "/v1/admin/apps/:app/push/apns") }
    /// `DELETE /v1/admin/apps/:app/push/apns`: no more pushes to Apple devices.
    public var removeAPNs: Endpoint<Void, PushSettings> { .init(.delete, "/v1/admin/apps/:app/push/apns") }
    /// `PUT /v1/admin/apps/:app/push/fcm`: the Firebase service account (sealed at rest, never shown again).
    public var setFCM: Endpoint<FCMCredentialsRequest, PushSettings> { .init(.put, "/v1/admin/apps/:app/push/fcm") }
    /// `DELETE /v1/admin/apps/:app/push/fcm`: no more pushes through Firebase.
    public var removeFCM: Endpoint<Void, PushSettings> { .init(.delete, "/v1/admin/apps/:app/push/fcm") }
    /// `GET /v1/admin/apps/:app/push/deliveries?limit=`: the latest pushes, newest first, with attempts.
    public var deliveries: Endpoint<Void, PushDeliveryList> { .init(.get, "/v1/admin/apps/:app/push/deliveries") }

    /// Every endpoint above.
    public var all: [AnyEndpoint] {
        [register.erased, unregister.erased, devices.erased, settings.erased, updateSettings.erased, setAPNs.erased, removeAPNs.erased,
         setFCM.erased, removeFCM.erased, deliveries.erased]
    }
}

/// `GET /v1/push/devices`.
public struct PushDeviceList: Hashable, Sendable, Codable {
    public var devices: [PushDevice]
    public init(devices: [PushDevice]) { self.devices = devices }
}
