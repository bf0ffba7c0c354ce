import Crypto
import Foundation

/// Standard Webhooks signing (https://www.standardwebhooks.com): secrets are `whsec_` and the
/// base64 of random bytes; a request carries `webhook-id`, `webhook-timestamp` (Unix seconds) and
/// `webhook-signature`: `v1,<base64 HMAC-SHA256 of "id.timestamp.body">`, several separated by
/// spaces while a rotated secret still signs.
public enum WebhookSignature {
    /// A new secret: `whsec_` and the base64 of 32 random bytes.
    public static func makeSecret() -> String {
        var bytes = [UInt8](repeating: 0, count: 32)
        var generator = SystemRandomNumberGenerator()
        for index in bytes.indices { bytes[index] = generator.next() }
        return "whsec_" + Data(bytes).base64EncodedString()
    }

    /// The key bytes of a `whsec_…` secret.
    /// - Throws: ``SecretBoxError`` when it is not one.
    public static func key(of secret: String) throws -> SymmetricKey {
        guard secret.hasPrefix("whsec_"), let bytes = Data(base64Encoded: String(secret.dropFirst(6))), !bytes.isEmpty else {
            throw SecretBoxError("not a whsec_ secret")
        }
        return SymmetricKey(data: bytes)
    }

    /// `v1,<signature>` for one secret.
    public static func sign(id: String, timestamp: Int64, body: Data, secret: String) throws -> String {
        var signed = Data("\(id).\(timestamp).".utf8)
        signed.append(body)
        let mac = HMAC<SHA256>.authenticationCode(for: signed, using: try key(of: secret))
        return "v1," + Data(mac).base64EncodedString()
    }

    /// The three headers of a request, signed with every secret given (the current one first).
    public static func headers(id: String, timestamp: Int64, body: Data, secrets: [String]) throws -> [(String, String)] {
        let signatures = try secrets.map { try sign(id: id, timestamp: timestamp, body: body, secret: $0) }
        return [("webhook-id", id), ("webhook-timestamp", String(timestamp)), ("webhook-signature", signatures.joined(separator: " "))]
    }
}
