import Foundation
import JWTKit
import ParleyCore

/// The tokens parleyd shows the push providers, made from an app's keys and kept while they are
/// good: APNs' provider token (an ES256 JWT Apple accepts for an hour and wants refreshed at most
/// every 20 minutes: kept 50) and FCM's OAuth access token (bought with an RS256 assertion, kept
/// until a minute before it expires). Keyed by app and by when its settings changed, so a new key
/// is used at once. Two deliveries missing at once may both make one; either is good.
final class ProviderTokens: Sendable {
    struct Token: Sendable {
        var value: String
        var expires: Date
    }

    private let tokens = Locked<[String: Token]>([:])
    private let clock: any WallClock

    init(clock: any WallClock) { self.clock = clock }

    /// The cached token for `key`, or a new one from `make` (kept until its expiry).
    func token(_ key: String, make: () async throws -> Token) async throws -> String {
        let now = clock.now()
        if let token = tokens.withLock({ $0[key] }), token.expires > now { return token.value }
        let fresh = try await make()
        tokens.withLock { $0[key] = fresh }
        return fresh.value
    }

    /// Forgets a token the provider refused (expired or revoked early).
    func forget(_ key: String) { _ = tokens.withLock { $0.removeValue(forKey: key) } }

    /// APNs' provider token: `{"alg":"ES256","kid":<key id>}` `{"iss":<team id>,"iat":<now>}`.
    static func apnsToken(teamID: String, keyID: String, privateKeyPEM: String, now: Date) async throws -> Token {
        let key = try ES256PrivateKey(pem: privateKeyPEM)
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: keyID))
        let jwt = try await keys.sign(APNsClaims(iss: IssuerClaim(value: teamID), iat: IssuedAtClaim(value: now)), kid: JWKIdentifier(string: keyID))
        return Token(value: jwt, expires: now.addingTimeInterval(50 * 60))
    }

    /// FCM's assertion (RFC 7523): signed with the service account's key, for the messaging scope.
    static func fcmAssertion(_ account: FCMServiceAccount, tokenURI: String, now: Date) async throws -> String {
        let key = try Insecure.RSA.PrivateKey(pem: account.privateKey)
        let keys = JWTKeyCollection()
        let kid = account.privateKeyID.map { JWKIdentifier(string: $0) }
        await keys.add(rsa: key, digestAlgorithm: .sha256, kid: kid)
        let claims = FCMAssertionClaims(
            iss: IssuerClaim(value: account.clientEmail), scope: "https://www.googleapis.com/auth/firebase.messaging",
            aud: AudienceClaim(value: tokenURI), iat: IssuedAtClaim(value: now), exp: ExpirationClaim(value: now.addingTimeInterval(3600)))
        return try await keys.sign(claims, kid: kid)
    }
}

struct APNsClaims: JWTPayload {
    var iss: IssuerClaim
    var iat: IssuedAtClaim
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}

struct FCMAssertionClaims: JWTPayload {
    var iss: IssuerClaim
    var scope: String
    var aud: AudienceClaim
    var iat: IssuedAtClaim
    var exp: ExpirationClaim
    func verify(using algorithm: some JWTAlgorithm) async throws {}
}
