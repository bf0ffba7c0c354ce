import Crypto
import Foundation
import ParleyCrypto

/// A device's keys for encrypted pushes: a P-256 key pair and a 16-byte auth secret. The server
/// gets ``publicKey`` and ``authSecret`` when the device registers; the private key never leaves
/// the device. A Notification Service Extension needs the same keys as the app: keep
/// ``rawRepresentation`` where both can read it (a shared Keychain group).
public struct PushKeys: Sendable {
    let privateKey: P256.KeyAgreement.PrivateKey
    /// 16 random bytes mixed into every key the server derives for this device.
    public let authSecret: Data

    /// New keys.
    public init() {
        privateKey = P256.KeyAgreement.PrivateKey()
        authSecret = Data((0..<16).map { _ in UInt8.random(in: .min ... .max) })
    }

    /// Keys kept earlier (``rawRepresentation``).
    /// - Throws: ``ParleyError/invalidInput(_:)`` for anything else.
    public init(rawRepresentation: Data) throws {
        guard rawRepresentation.count == 48 else { throw ParleyError.invalidInput("push keys are 48 bytes") }
        do {
            privateKey = try P256.KeyAgreement.PrivateKey(rawRepresentation: rawRepresentation.prefix(32))
        } catch {
            throw ParleyError.invalidInput("not a P-256 private key")
        }
        authSecret = Data(rawRepresentation.suffix(16))
    }

    /// The keys from the private key's 32 bytes and the auth secret (RFC 8291's test vector gives them so).
    public init(privateKey: Data, authSecret: Data) throws {
        try self.init(rawRepresentation: privateKey + authSecret)
    }

    /// The private key then the auth secret: 48 bytes to keep secret.
    public var rawRepresentation: Data { privateKey.rawRepresentation + authSecret }

    /// The public key, uncompressed (65 bytes, `0x04 ‖ x ‖ y`), base64url: Web Push's `p256dh`.
    public var publicKey: String { privateKey.publicKey.x963Representation.base64URLEncoded }

    /// The auth secret, base64url.
    public var authSecretText: String { authSecret.base64URLEncoded }

    /// Decrypts an `aes128gcm` body sealed to these keys.
    public func decrypt(_ body: Data) throws(PushContentCoding.Failure) -> Data {
        try PushContentCoding.decrypt(body, with: privateKey, authSecret: authSecret)
    }
}
