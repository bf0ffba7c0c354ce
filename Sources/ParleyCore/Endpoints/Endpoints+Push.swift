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

    /// Every endpoint above.
    public var all: [AnyEndpoint] { [register.erased, unregister.erased, devices.erased] }
}

/// `GET /v1/push/devices`.
public struct PushDeviceList: Hashable, Sendable, Codable {
    public var devices: [PushDevice]
    public init(devices: [PushDevice]) { self.devices = devices }
}
