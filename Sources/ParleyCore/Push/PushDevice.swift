import Foundation

/// Who carries a device's pushes.
public enum PushProvider: String, Hashable, Sendable, Codable {
    /// Apple Push Notification service.
    case apns
    /// Firebase Cloud Messaging (HTTP v1).
    case fcm
}

/// Which APNs a token belongs to: a debug build's tokens are the sandbox's.
public enum APNsEnvironment: String, Hashable, Sendable, Codable {
    case sandbox, production
}

/// `PUT /v1/push/devices/{device}`: the visitor's app hands its push token (Pyrus' `setPushToken`),
/// bound to the visitor and this device. With `encryption`, pushes to it are sealed to its key.
///
/// `{"encryption":{"auth_secret":"…","public_key":"…"},"environment":"production","provider":"apns","token":"…"}`
public struct PushDeviceRequest: Hashable, Sendable, Codable {
    public var provider: PushProvider
    /// The APNs device token (hex) or the FCM registration token.
    public var token: String
    /// APNs only: sandbox or production (default production).
    public var environment: APNsEnvironment?
    /// The device's keys for encrypted pushes; nil for pushes in the clear.
    public var encryption: PushEncryptionKeys?
    /// The language notifications are written in (`de`); nil for the app's default.
    public var locale: String?

    public init(provider: PushProvider, token: String, environment: APNsEnvironment? = nil, encryption: PushEncryptionKeys? = nil, locale: String? = nil) {
        self.provider = provider
        self.token = token
        self.environment = environment
        self.encryption = encryption
        self.locale = locale
    }

    /// Checks the token's shape for its provider, the keys' sizes and the locale.
    public func check() throws(Validation.Failure) {
        switch provider {
        case .apns:
            guard (32...200).contains(token.count), token.count.isMultiple(of: 2), token.allSatisfy(\.isHexDigit) else {
                throw Validation.Failure(field: "token", message: "an APNs device token is 32 to 200 hexadecimal digits")
            }
        case .fcm:
            guard (20...4096).contains(token.count), token.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F }) else {
                throw Validation.Failure(field: "token", message: "an FCM registration token is 20 to 4,096 printable ASCII characters")
            }
            if environment != nil { throw Validation.Failure(field: "environment", message: "only APNs tokens have an environment") }
        }
        if let encryption { try encryption.check() }
        if let locale {
            guard (2...35).contains(locale.count), locale.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-") }) else {
                throw Validation.Failure(field: "locale", message: "a language tag such as de or pt-BR")
            }
        }
    }
}

/// A device's public key (P-256, uncompressed, base64url: Web Push's `p256dh`) and auth secret
/// (16 bytes, base64url).
public struct PushEncryptionKeys: Hashable, Sendable, Codable {
    public var publicKey: String
    public var authSecret: String

    public init(publicKey: String, authSecret: String) {
        self.publicKey = publicKey
        self.authSecret = authSecret
    }

    enum CodingKeys: String, CodingKey { case publicKey = "public_key", authSecret = "auth_secret" }

    /// 65 bytes starting 0x04, and 16 bytes (the curve point itself is checked when a push is sealed).
    public func check() throws(Validation.Failure) {
        guard let key = Self.bytes(publicKey), key.count == 65, key.first == 0x04 else {
            throw Validation.Failure(field: "encryption.public_key", message: "an uncompressed P-256 public key (65 bytes), base64url")
        }
        guard let secret = Self.bytes(authSecret), secret.count == 16 else {
            throw Validation.Failure(field: "encryption.auth_secret", message: "16 bytes, base64url")
        }
    }

    static func bytes(_ text: String) -> [UInt8]? {
        guard text.count <= 200, text.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }) else { return nil }
        var standard = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        standard += String(repeating: "=", count: (4 - standard.count % 4) % 4)
        return Data(base64Encoded: standard).map { [UInt8]($0) }
    }
}

/// A registered device, as the server answers: never its auth secret.
public struct PushDevice: Hashable, Sendable, Codable {
    public var deviceID: String
    public var provider: PushProvider
    public var environment: APNsEnvironment?
    /// True when pushes to it are encrypted.
    public var encrypted: Bool
    public var locale: String?
    public var updatedAt: Date

    public init(deviceID: String, provider: PushProvider, environment: APNsEnvironment?, encrypted: Bool, locale: String?, updatedAt: Date) {
        self.deviceID = deviceID
        self.provider = provider
        self.environment = environment
        self.encrypted = encrypted
        self.locale = locale
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case deviceID = "device_id", provider, environment, encrypted, locale, updatedAt = "updated_at"
    }
}
