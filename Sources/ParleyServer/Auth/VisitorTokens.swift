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
    struct Claims: Codable, Hashable {
        var app: String
        var visitor: String
        var name: String?
        var expires: Int64
    }

    let key: SymmetricKey
    let lifetime: TimeInterval

    init(key: Data, lifetime: TimeInterval) {
        self.key = SymmetricKey(data: key)
        self.lifetime = lifetime
    }

    func issue(app: AppID, visitor: VisitorID, name: String?, now: Date) -> (token: String, expiresAt: Date) {
        // Whole seconds: the token carries seconds, so the answer's expires_at must agree with it.
        let expiresAt = Date(timeIntervalSince1970: (now.timeIntervalSince1970 + lifetime).rounded(.down))
        let claims = Claims(app: app.rawValue, visitor: visitor.rawValue, name: name, expires: Int64(expiresAt.timeIntervalSince1970))
        let payload = (try! JSONEncoder().encode(claims)).base64URLEncoded  // a struct of strings and ints always encodes
        let signature = Data(HMAC<SHA256>.authenticationCode(for: Data(("pv1." + payload).utf8), using: key)).base64URLEncoded
        return ("pv1.\(payload).\(signature)", expiresAt)
    }

    /// The caller a token names, or nil when it is malformed, forged or expired.
    func verify(_ token: String, now: Date) -> VisitorCaller? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "pv1",
              let signature = Data(base64URLEncoded: String(parts[2])),
              HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(("pv1." + parts[1]).utf8), using: key),
              let payload = Data(base64URLEncoded: String(parts[1])),
              let claims = try? JSONDecoder().decode(Claims.self, from: payload),
              claims.expires > Int64(now.timeIntervalSince1970),
              let app = AppID(validating: claims.app), let visitor = VisitorID(validating: claims.visitor)
        else { return nil }
        return VisitorCaller(appID: app, visitorID: visitor, name: claims.name, expiresAt: Date(timeIntervalSince1970: Double(claims.expires)))
    }
}

/// Opaque random tokens (agent sessions) and their stored hashes.
enum OpaqueTokens {
    /// A new token: a prefix and 32 random bytes.
    static func make(prefix: String) -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        return prefix + "." + Data(bytes).base64URLEncoded
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
