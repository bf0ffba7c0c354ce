import Crypto
import Foundation

/// The claims a visitor token carries: plain strings and seconds, so this module needs no Parley
/// types; the server checks the ids and the expiry.
public struct VisitorTokenClaims: Codable, Hashable, Sendable {
    public var app: String
    public var visitor: String
    public var name: String?
    /// Seconds since 1970.
    public var expires: Int64
    /// Random for each session, so two sessions of one visitor issued in the same second are two
    /// tokens: sign-out revokes a token by its hash, and must end only its own session. Nil in
    /// tokens issued before it existed.
    public var session: String?

    public init(app: String, visitor: String, name: String?, expires: Int64, session: String? = nil) {
        self.app = app
        self.visitor = visitor
        self.name = name
        self.expires = expires
        self.session = session
    }

    enum CodingKeys: String, CodingKey {
        case app, visitor, name, expires
        case session = "sid"
    }
}

/// Signs and reads visitor tokens: `pv1.<payload>.<signature>`, both base64url, the payload JSON
/// claims, the signature HMAC-SHA256 of `pv1.<payload>` with the server's token key.
///
/// A token reads only in the exact form this signer writes: base64 leaves unused bits in the last
/// character of 32 bytes, which decoders ignore, so four spellings would decode to one signature.
/// Sign-out revokes a token by the hash of its text, so every other spelling must be refused, not
/// decoded.
public struct VisitorTokenSigner: Sendable {
    private let key: SymmetricKey

    public init(key: Data) {
        self.key = SymmetricKey(data: key)
    }

    /// The token for the claims.
    public func token(for claims: VisitorTokenClaims) -> String {
        // Sorted keys: the encoder's order otherwise varies from one call to the next.
        let encoder = JSONEncoder()
        encoder.outputFormatting = .sortedKeys
        let payload = (try! encoder.encode(claims)).base64URLEncoded  // strings and integers always encode
        return "pv1.\(payload).\(signature(of: payload))"
    }

    /// The claims of a token this signer wrote, or nil when it is malformed, not in the form
    /// written, or its signature does not hold. No clock and no id checks: those are the caller's.
    public func claims(of token: String) -> VisitorTokenClaims? {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts[0] == "pv1", let signature = Data(base64URLEncoded: String(parts[2])),
              signature.base64URLEncoded == parts[2],
              HMAC<SHA256>.isValidAuthenticationCode(signature, authenticating: Data(("pv1." + parts[1]).utf8), using: key),
              let payload = Data(base64URLEncoded: String(parts[1])),
              let claims = try? JSONDecoder().decode(VisitorTokenClaims.self, from: payload)
        else { return nil }
        return claims
    }

    private func signature(of payload: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data(("pv1." + payload).utf8), using: key)).base64URLEncoded
    }
}

/// A JWT's header, read before any key is chosen.
public struct JWTHeader: Hashable, Sendable {
    public var alg: String
    public var kid: String?

    /// Nil unless the token has three dot-separated parts whose first is base64url JSON with a
    /// string `alg`.
    public init?(token: String) {
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, let data = Data(base64URLEncoded: String(parts[0])),
              let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any], let alg = object["alg"] as? String
        else { return nil }
        self.alg = alg
        kid = object["kid"] as? String
    }
}
