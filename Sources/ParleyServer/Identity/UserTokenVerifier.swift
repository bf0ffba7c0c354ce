import Foundation
import ParleyCrypto
import JWTKit
import ParleyCore

/// Checks a signed user token (JWT) minted by the app's backend.
///
/// - Algorithms: `HS256` with the app's secret key, when the app allows it; `RS256` and `ES256`
///   against the app's JWKS URL, when it has one. Nothing else, `none` least of all: the header's
///   `alg` is checked against this list before any key is touched, so an RSA public key can never
///   be used as an HMAC secret.
/// - Keys: a JWKS is fetched once and kept for ``jwksLifetime``; a `kid` it does not hold makes
///   one fresh fetch (keys rotate), at most once per ``jwksRefetchInterval`` per URL.
/// - Claims: the signature, `exp` (required), `nbf` and `iat` with ``leeway``, `aud` = the app id,
///   `sub` = the user id; `name`, `email` and `attributes` are read as verified.
public final class UserTokenVerifier: Sendable {
    /// What an app allows for tokens.
    public struct Keys: Sendable, Hashable {
        /// The app's secret key, when HS256 tokens are allowed.
        public var secretKey: String?
        /// Where the app publishes its public keys, for RS256 and ES256.
        public var jwksURL: URL?

        public init(secretKey: String? = nil, jwksURL: URL? = nil) {
            self.secretKey = secretKey
            self.jwksURL = jwksURL
        }
    }

    /// Clock skew tolerated on `exp`, `nbf` and `iat`. Default 60 s.
    public let leeway: TimeInterval
    /// How long a fetched JWKS is used. Default 10 min.
    public let jwksLifetime: TimeInterval
    /// The least time between two fetches of one JWKS for an unknown `kid`. Default 30 s.
    public let jwksRefetchInterval: TimeInterval
    private let clock: any WallClock
    private let cache: JWKSCache

    public init(outbound: OutboundClient, clock: any WallClock, leeway: TimeInterval = 60, jwksLifetime: TimeInterval = 600,
                jwksRefetchInterval: TimeInterval = 30) {
        self.clock = clock
        self.leeway = leeway
        self.jwksLifetime = jwksLifetime
        self.jwksRefetchInterval = jwksRefetchInterval
        cache = JWKSCache(outbound: outbound)
    }

    /// Verifies `token` for `app`.
    /// - Throws: ``IdentityError``: refused for a bad token, unavailable when the JWKS cannot be fetched.
    public func verify(_ token: String, app: AppID, keys: Keys) async throws -> VerifiedUser {
        let header = try Self.header(of: token)
        let collection: JWTKeyCollection
        switch header.alg {
        case "HS256":
            guard let secret = keys.secretKey else { throw IdentityError.refused("user_token: HS256 tokens are not enabled for this app") }
            // RFC 7518 §3.2: an HS256 key has at least 256 bits. Parley's secret keys are longer.
            guard secret.utf8.count >= 32 else { throw IdentityError.refused("user_token: the app's secret key is too short for HS256") }
            collection = JWTKeyCollection()
            await collection.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        case "RS256", "ES256":
            guard let url = keys.jwksURL else { throw IdentityError.refused("user_token: \(header.alg) needs a JWKS URL set for this app") }
            let now = clock.now()
            var jwks = try await cache.jwks(url, now: now, maximumAge: jwksLifetime)
            if !jwks.holds(kid: header.kid) {
                jwks = try await cache.refetch(url, now: now, minimumInterval: jwksRefetchInterval) ?? jwks
            }
            guard jwks.holds(kid: header.kid) else { throw IdentityError.refused("user_token: no key \(header.kid ?? "(no kid)") in the app's JWKS") }
            collection = jwks.keys
        default:
            throw IdentityError.refused("user_token: alg \(header.alg) is not allowed (HS256, RS256, ES256)")
        }
        let claims: UserTokenClaims
        do {
            claims = try await collection.verify(token, as: UserTokenClaims.self)
        } catch {
            throw IdentityError.refused("user_token: the signature does not verify")
        }
        try check(claims, app: app)
        return VerifiedUser(userID: claims.sub.value, name: claims.name, email: claims.email, attributes: claims.attributes ?? [:], method: .token)
    }

    private func check(_ claims: UserTokenClaims, app: AppID) throws {
        let now = clock.now()
        guard claims.exp.value.addingTimeInterval(leeway) > now else { throw IdentityError.refused("user_token: expired") }
        if let notBefore = claims.nbf, notBefore.value > now.addingTimeInterval(leeway) {
            throw IdentityError.refused("user_token: not valid yet (nbf)")
        }
        if let issued = claims.iat, issued.value > now.addingTimeInterval(leeway) {
            throw IdentityError.refused("user_token: issued in the future (iat)")
        }
        guard claims.aud.value.contains(app.rawValue) else { throw IdentityError.refused("user_token: aud must be the app id \(app.rawValue)") }
        try validateUserID(claims.sub.value)
    }

    /// The token's header, read before any key is chosen.
    static func header(of token: String) throws -> (alg: String, kid: String?) {
        guard let header = JWTHeader(token: token) else { throw IdentityError.refused("user_token: not a JWT (header.payload.signature)") }
        return (header.alg, header.kid)
    }
}

/// The claims Parley reads from a user token. The checks that need the time are the verifier's
/// (its clock and leeway), so `verify(using:)` checks nothing more.
struct UserTokenClaims: JWTPayload {
    var sub: SubjectClaim
    var aud: AudienceClaim
    var exp: ExpirationClaim
    var nbf: NotBeforeClaim?
    var iat: IssuedAtClaim?
    var name: String?
    var email: String?
    var attributes: [String: String]?

    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
