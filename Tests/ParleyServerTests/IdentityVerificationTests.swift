import Foundation
import Hummingbird
import JWTKit
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// The three ways an app proves who its user is, each against a real HTTP server where one is
/// involved (the app's auth service, its JWKS host), on a manual clock.
@Suite("Verified identity")
struct IdentityVerificationTests {
    static let app = AppID(rawValue: "app_identity_test")

    // MARK: Identity hash

    @Test func identityHash_matches_inEitherCase_andAnythingElseIsRefused() throws {
        let hash = IdentityHash.make(userID: "user-42", secretKey: "sk_live_0123456789abcdef0123456789abcdef")
        #expect(hash.count == 64)
        #expect(try IdentityHash.verify(hash, userID: "user-42", secretKey: "sk_live_0123456789abcdef0123456789abcdef").userID == "user-42")
        #expect(try IdentityHash.verify(hash.uppercased(), userID: "user-42", secretKey: "sk_live_0123456789abcdef0123456789abcdef").method == .identityHash)
        #expect(throws: IdentityError.refused("user_hash does not match the user id")) {
            try IdentityHash.verify(hash, userID: "user-43", secretKey: "sk_live_0123456789abcdef0123456789abcdef")
        }
        #expect(throws: IdentityError.self) { try IdentityHash.verify(hash, userID: "user-42", secretKey: "another key") }
        #expect(throws: IdentityError.self) { try IdentityHash.verify("zz" + hash.dropFirst(2), userID: "user-42", secretKey: "sk_live_0123456789abcdef0123456789abcdef") }
        #expect(throws: IdentityError.self) { try IdentityHash.verify(String(hash.dropLast(2)), userID: "user-42", secretKey: "sk_live_0123456789abcdef0123456789abcdef") }
        #expect(throws: IdentityError.self) { try IdentityHash.verify(hash, userID: "", secretKey: "sk_live_0123456789abcdef0123456789abcdef") }
    }

    // MARK: Auth service

    /// The app's auth service: answers by the security key, counts its calls; `slow` never answers
    /// until the test lets it go.
    final class AuthService: Sendable {
        let calls = Locked(0)
        let release: AsyncStream<Void>
        let releaseContinuation: AsyncStream<Void>.Continuation
        init() { (release, releaseContinuation) = AsyncStream.makeStream() }

        func routes(_ router: Router<BasicRequestContext>) {
            router.post("verify") { request, context -> Response in
                self.calls.withLock { $0 += 1 }
                let body = try await request.body.collect(upTo: 10_000)
                let fields = try JSONSerialization.jsonObject(with: Data(body.readableBytesView)) as? [String: String] ?? [:]
                switch fields["security_key"] {
                case "good" where fields["app_id"] == IdentityVerificationTests.app.rawValue && fields["user_id"] == "user-42":
                    return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string:
                        #"{"name": "Ann Lee", "email": "Ann@Example.com", "attributes": {"plan": "gold", "seats": 3}}"#)))
                case "empty": return Response(status: .ok)
                case "garbage": return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: "<html>")))
                case "broken": return Response(status: .internalServerError)
                case "slow":
                    for await _ in self.release { break }
                    return Response(status: .ok)
                case "bad-request": return Response(status: .badRequest)
                default: return Response(status: .forbidden)
                }
            }
        }
    }

    static func withAuthService(timeout: TimeInterval = 5, _ body: (AuthServiceVerifier, URL, AuthService, ManualClock) async throws -> Void) async throws {
        let service = AuthService()
        let server = try await LocalHTTPServer.start(service.routes)
        var policy = OutboundPolicy.loopbackForTests
        policy.timeout = timeout
        let outbound = OutboundClient(policy: policy)
        let clock = ManualClock()
        do {
            try await body(AuthServiceVerifier(outbound: outbound, clock: clock), server.url("/verify"), service, clock)
        } catch {
            service.releaseContinuation.finish()
            try? await outbound.shutdown()
            await server.stop()
            throw error
        }
        service.releaseContinuation.finish()
        try await outbound.shutdown()
        await server.stop()
    }

    @Test func authService_accepted_givesTheVerifiedProfile_andIsRemembered() async throws {
        try await Self.withAuthService { verifier, url, service, clock in
            let user = try await verifier.verify(userID: "user-42", securityKey: "good", app: Self.app, url: url, cacheSeconds: 60)
            #expect(user == VerifiedUser(userID: "user-42", name: "Ann Lee", email: "Ann@example.com",
                                         attributes: ["plan": "gold", "seats": "3"], method: .authService),
                    "the email's domain is normalised, its local part kept")
            _ = try await verifier.verify(userID: "user-42", securityKey: "good", app: Self.app, url: url, cacheSeconds: 60)
            #expect(service.calls.withLock { $0 } == 1, "the second sign-in within the cache time does not call the service")
            clock.advance(by: 61)
            _ = try await verifier.verify(userID: "user-42", securityKey: "good", app: Self.app, url: url, cacheSeconds: 60)
            #expect(service.calls.withLock { $0 } == 2)
            #expect(try await verifier.verify(userID: "user-7", securityKey: "empty", app: Self.app, url: url, cacheSeconds: 0).name == nil)
        }
    }

    @Test(arguments: [("wrong", false), ("bad-request", false), ("broken", true), ("garbage", true)])
    func authService_refusals_andFailures_neverVerify(_ key: String, _ unavailable: Bool) async throws {
        try await Self.withAuthService { verifier, url, service, _ in
            do {
                _ = try await verifier.verify(userID: "user-42", securityKey: key, app: Self.app, url: url, cacheSeconds: 60)
                Issue.record("\(key) was accepted")
            } catch let error as IdentityError {
                #expect(error.isUnavailable == unavailable, "\(error)")
            }
            _ = try? await verifier.verify(userID: "user-42", securityKey: key, app: Self.app, url: url, cacheSeconds: 60)
            #expect(service.calls.withLock { $0 } == 2, "a refusal is never remembered")
        }
    }

    @Test func authService_slow_failsClosedAtTheDeadline() async throws {
        try await Self.withAuthService(timeout: 1) { verifier, url, _, _ in
            await #expect(throws: IdentityError.self) {
                _ = try await verifier.verify(userID: "user-42", securityKey: "slow", app: Self.app, url: url, cacheSeconds: 60)
            }
        }
    }

    @Test func authService_onAPrivateAddress_isRefused_unlessAllowed() async throws {
        let outbound = OutboundClient(policy: OutboundPolicy())
        let verifier = AuthServiceVerifier(outbound: outbound, clock: ManualClock())
        for url in ["https://127.0.0.1/verify", "https://10.1.2.3/verify", "https://[::1]/verify", "https://169.254.169.254/latest",
                    "http://auth.example.com/verify"] {
            do {
                _ = try await verifier.verify(userID: "u", securityKey: "k", app: Self.app, url: URL(string: url)!, cacheSeconds: 0)
                Issue.record("\(url) was called")
            } catch let error as IdentityError {
                #expect(error.reason.contains("private") || error.reason.contains("https"), "\(url): \(error)")
            }
        }
        try await outbound.shutdown()
    }

    // MARK: User tokens

    static func claims(sub: String = "user-42", aud: String = app.rawValue, expiresIn: TimeInterval = 300, notBefore: TimeInterval? = nil,
                       issuedAt: TimeInterval? = 0, clock: ManualClock) -> UserTokenClaims {
        UserTokenClaims(
            sub: .init(value: sub), aud: .init(value: [aud]), exp: .init(value: clock.now().addingTimeInterval(expiresIn)),
            nbf: notBefore.map { .init(value: clock.now().addingTimeInterval($0)) }, iat: issuedAt.map { .init(value: clock.now().addingTimeInterval($0)) },
            name: "Ann Lee", email: "ann@example.com", attributes: ["plan": "gold"])
    }

    static func hs256(_ claims: UserTokenClaims, secret: String = "sk_live_0123456789abcdef0123456789abcdef") async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(hmac: HMACKey(from: secret), digestAlgorithm: .sha256)
        return try await keys.sign(claims)
    }

    @Test func hs256_withTheAppsSecret_verifies_andEveryClaimIsChecked() async throws {
        let clock = ManualClock()
        let outbound = OutboundClient(policy: .loopbackForTests)
        defer { Task { try? await outbound.shutdown() } }
        let verifier = UserTokenVerifier(outbound: outbound, clock: clock)
        let keys = UserTokenVerifier.Keys(secretKey: "sk_live_0123456789abcdef0123456789abcdef")

        let user = try await verifier.verify(try await Self.hs256(Self.claims(clock: clock)), app: Self.app, keys: keys)
        #expect(user == VerifiedUser(userID: "user-42", name: "Ann Lee", email: "ann@example.com", attributes: ["plan": "gold"], method: .token))

        let refused: [(String, String)] = [
            ("expired", try await Self.hs256(Self.claims(expiresIn: -61, clock: clock))),
            ("not yet valid", try await Self.hs256(Self.claims(notBefore: 120, clock: clock))),
            ("issued in the future", try await Self.hs256(Self.claims(issuedAt: 120, clock: clock))),
            ("another app", try await Self.hs256(Self.claims(aud: "app_other", clock: clock))),
            ("another key", try await Self.hs256(Self.claims(clock: clock), secret: "sk_live_not_the_apps_key_0123456789abcdef")),
            ("no user", try await Self.hs256(Self.claims(sub: "", clock: clock))),
            ("alg none", Self.unsigned(#"{"alg":"none","typ":"JWT"}"#, clock: clock)),
            ("alg HS512", Self.unsigned(#"{"alg":"HS512","typ":"JWT"}"#, clock: clock)),
            ("not a JWT", "hello"),
        ]
        for (what, token) in refused {
            await #expect(throws: IdentityError.self, "\(what)") { _ = try await verifier.verify(token, app: Self.app, keys: keys) }
        }
        // Within the leeway, a token a few seconds old or early is fine.
        _ = try await verifier.verify(try await Self.hs256(Self.claims(expiresIn: -30, notBefore: 30, clock: clock)), app: Self.app, keys: keys)
        // HS256 only when the app allows it.
        await #expect(throws: IdentityError.self) {
            _ = try await verifier.verify(try await Self.hs256(Self.claims(clock: clock)), app: Self.app, keys: .init())
        }
    }

    /// A token with the given header and a valid payload but no signature.
    static func unsigned(_ header: String, clock: ManualClock) -> String {
        let payload = try! ParleyJSON.encode(claims(clock: clock))
        return base64URL(Data(header.utf8)) + "." + base64URL(payload) + "."
    }

    static func base64URL(_ data: Data) -> String {
        data.base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// A JWKS host whose key set the test replaces, counting fetches.
    final class KeyHost: Sendable {
        let jwks = Locked<String>(#"{"keys": []}"#)
        let fetches = Locked(0)
        let isDown = Locked(false)
        func routes(_ router: Router<BasicRequestContext>) {
            router.get("jwks.json") { _, _ -> Response in
                self.fetches.withLock { $0 += 1 }
                if self.isDown.withLock({ $0 }) { return Response(status: .serviceUnavailable) }
                return Response(status: .ok, body: .init(byteBuffer: ByteBuffer(string: self.jwks.withLock { $0 })))
            }
        }
    }

    static func jwk(_ key: ES256PrivateKey, kid: String) throws -> String {
        let parameters = try #require(key.publicKey.parameters)
        return #"{"kty": "EC", "crv": "P-256", "alg": "ES256", "use": "sig", "kid": "\#(kid)", "x": "\#(parameters.x)", "y": "\#(parameters.y)"}"#
    }

    static func es256(_ claims: UserTokenClaims, key: ES256PrivateKey, kid: String) async throws -> String {
        let keys = JWTKeyCollection()
        await keys.add(ecdsa: key, kid: JWKIdentifier(string: kid))
        return try await keys.sign(claims, kid: JWKIdentifier(string: kid))
    }

    @Test func es256_fromTheAppsJWKS_verifies_rotatesKeys_andFailsClosedWhenItIsDown() async throws {
        let host = KeyHost()
        let server = try await LocalHTTPServer.start(host.routes)
        let outbound = OutboundClient(policy: .loopbackForTests)
        let clock = ManualClock()
        let verifier = UserTokenVerifier(outbound: outbound, clock: clock)
        let keys = UserTokenVerifier.Keys(jwksURL: server.url("/jwks.json"))
        let first = ES256PrivateKey(), second = ES256PrivateKey()
        host.jwks.withLock { $0 = #"{"keys": [\#(try! Self.jwk(first, kid: "k1"))]}"# }

        let user = try await verifier.verify(try await Self.es256(Self.claims(clock: clock), key: first, kid: "k1"), app: Self.app, keys: keys)
        #expect(user.userID == "user-42")
        _ = try await verifier.verify(try await Self.es256(Self.claims(clock: clock), key: first, kid: "k1"), app: Self.app, keys: keys)
        #expect(host.fetches.withLock { $0 } == 1, "the key set is kept")

        // Rotation: the app publishes k2 and signs with it; the unknown kid makes one fresh fetch.
        clock.advance(by: 31)
        host.jwks.withLock { $0 = #"{"keys": [\#(try! Self.jwk(first, kid: "k1")), \#(try! Self.jwk(second, kid: "k2"))]}"# }
        _ = try await verifier.verify(try await Self.es256(Self.claims(clock: clock), key: second, kid: "k2"), app: Self.app, keys: keys)
        #expect(host.fetches.withLock { $0 } == 2)

        // Made-up kids do not make the server fetch again and again.
        for index in 0..<5 {
            await #expect(throws: IdentityError.self) {
                _ = try await verifier.verify(try await Self.es256(Self.claims(clock: clock), key: second, kid: "forged-\(index)"), app: Self.app, keys: keys)
            }
        }
        #expect(host.fetches.withLock { $0 } == 2)

        // A token signed by another key under a known kid; an HS256 token signed with the JWKS JSON.
        await #expect(throws: IdentityError.self) {
            _ = try await verifier.verify(try await Self.es256(Self.claims(clock: clock), key: ES256PrivateKey(), kid: "k1"), app: Self.app, keys: keys)
        }
        await #expect(throws: IdentityError.self) {
            _ = try await verifier.verify(try await Self.hs256(Self.claims(clock: clock), secret: host.jwks.withLock { $0 }), app: Self.app, keys: keys)
        }

        // The key set expires; the host is down: refused as unavailable, never accepted.
        clock.advance(by: 601)
        host.isDown.withLock { $0 = true }
        do {
            _ = try await verifier.verify(try await Self.es256(Self.claims(clock: clock), key: first, kid: "k1"), app: Self.app, keys: keys)
            Issue.record("accepted without a key set")
        } catch let error as IdentityError {
            #expect(error.isUnavailable)
        }
        try await outbound.shutdown()
        await server.stop()
    }
}
