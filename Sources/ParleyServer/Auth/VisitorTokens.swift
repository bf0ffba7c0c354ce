import Crypto
import Foundation
import ParleyCrypto
import ParleyCore

/// Signed, expiring visitor tokens: `pv1.<payload>.<signature>`, both base64url.
///
/// The payload is JSON naming the app, the visitor and the expiry; the signature is HMAC-SHA256 with
/// the server's token key. Visitors are many and their tokens are checked on every request, so they
/// are verified without a database read. Verified identities (HMAC of a user id, JWT, a customer
/// auth service) will mint the same token after their own check; see docs/decisions/0001.
struct VisitorTokens: Sendable {
    let signer: VisitorTokenSigner
    let lifetime: TimeInterval

    init(key: Data, lifetime: TimeInterval) {
        signer = VisitorTokenSigner(key: key)
        self.lifetime = lifetime
    }

    func issue(app: AppID, visitor: VisitorID, name: String?, now: Date) -> (token: String, expiresAt: Date) {
        // Whole seconds: the token carries seconds, so the answer's expires_at must agree with it.
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down))
        let claims = VisitorTokenClaims(app: app.rawValue, visitor: visitor.rawValue, name: name, expires: Int64(expiresAt.timeIntervalSince1970),
                                        session: OpaqueTokens.randomText(bytes: 16))
        return (signer.token(for: claims), expiresAt)
    }

    /// The caller a token names, or nil when it is malformed, forged, not in the form issued, or expired.
    func verify(_ token: String, now: Date) -> VisitorCaller? {
        guard let claims = signer.claims(of: token), claims.expires > Int64(now.timeIntervalSince1970),
              let app = AppID(validating: claims.app), let visitor = VisitorID(validating: claims.visitor)
        else { return nil }
        return VisitorCaller(appID: app, visitorID: visitor, name: claims.name, expiresAt: Date(timeIntervalSince1970: Double(claims.expires)))
    }
}

/// Opaque random tokens (agent sessions) and their stored hashes.
enum OpaqueTokens {
    /// A new token: a prefix and 32 random bytes.
    static func make(prefix: String) -> String {
        prefix + "." + randomText(bytes: 32)
    }

    /// `bytes` random bytes from the system's generator, base64url.
    static func randomText(bytes: Int) -> String {
        var generator = SystemRandomNumberGenerator()
        return Data((0..<bytes).map { _ in UInt8.random(in: .min ... .max, using: &generator) }).base64URLEncoded
    }

    /// The SHA-256 of a token, hex: what the store keeps.
    static func hash(_ token: String) -> String {
        SHA256.hash(data: Data(token.utf8)).hexString
    }

    /// Compares secrets in time independent of where they differ.
    static func constantTimeEquals(_ a: String, _ b: String) -> Bool {
        let left = Array(a.utf8), right = Array(b.utf8)
        guard left.count == right.count else { return false }
        return zip(left, right).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// A readable random password for generated agent accounts: 16 characters from an unambiguous alphabet.
    static func password() -> String {
        let alphabet = Array("abcdefghjkmnpqrstuvwxyzABCDEFGHJKMNPQRSTUVWXYZ23456789")
        var generator = SystemRandomNumberGenerator()
        return String((0..<16).map { _ in alphabet.randomElement(using: &generator)! })
    }
}
