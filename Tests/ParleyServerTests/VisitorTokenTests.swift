import Foundation
import ParleyCore
import ParleyCrypto
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// Visitor tokens read only in the form they were issued (found by fuzzing: base64's unused bits).
struct VisitorTokenTests {
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")

    /// Every other spelling of the token's last character, valid base64url or not.
    static func variants(of token: String) -> [String] {
        alphabet.filter { $0 != token.last }.map { String(token.dropLast()) + String($0) }
    }

    @Test func aSignature_spelledAnyOtherWay_isRefused() throws {
        let tokens = VisitorTokens(key: Data(repeating: 7, count: 32), lifetime: 3_600)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let (token, _) = tokens.issue(app: .generate(), visitor: .generate(), name: "Ann", now: now)
        #expect(tokens.verify(token, now: now) != nil)
        for variant in Self.variants(of: token) {
            #expect(tokens.verify(variant, now: now) == nil, "\(variant.suffix(3))")
        }
        // The regression input the token fuzzer found, as the signer writes and reads it.
        let signer = VisitorTokenSigner(key: Data(repeating: 7, count: 32))
        let claims = VisitorTokenClaims(app: "app", visitor: "vis", name: nil, expires: 1)
        #expect(signer.claims(of: signer.token(for: claims)) == claims)
        #expect(Self.variants(of: signer.token(for: claims)).allSatisfy { signer.claims(of: $0) == nil })
    }

    /// Sign-out revokes one session by its token's hash: sessions of one visitor issued in the same
    /// second must not share a token, or signing out one would sign out the others. (They once
    /// differed only when the encoder happened to order the claims differently.)
    @Test func sessionsInTheSameSecond_getTokensOfTheirOwn() throws {
        let tokens = VisitorTokens(key: Data(repeating: 7, count: 32), lifetime: 3_600)
        let now = Date(timeIntervalSince1970: 1_800_000_000)
        let (app, visitor) = (AppID.generate(), VisitorID.generate())
        let issued = (0..<100).map { _ in tokens.issue(app: app, visitor: visitor, name: "Ann", now: now) }
        #expect(Set(issued.map(\.token)).count == issued.count)
        #expect(Set(issued.map(\.expiresAt)).count == 1)
        #expect(issued.allSatisfy { tokens.verify($0.token, now: now)?.visitorID == visitor })
    }

    /// A token issued before claims had a session still reads (they live for weeks).
    @Test func aTokenWithoutASession_stillReads() throws {
        let signer = VisitorTokenSigner(key: Data(repeating: 7, count: 32))
        let payload = Data(#"{"app":"app","expires":1,"name":"Ann","visitor":"vis"}"#.utf8).base64URLEncoded
        let old = signer.token(for: VisitorTokenClaims(app: "app", visitor: "vis", name: "Ann", expires: 1))
        #expect(old.split(separator: ".")[1] == payload, "no sid claim when there is no session")
        #expect(signer.claims(of: old) == VisitorTokenClaims(app: "app", visitor: "vis", name: "Ann", expires: 1))
    }

    @Test func aSignedOutToken_staysRefused_whateverItsLastCharacter() async throws {
        try await withServer { server in
            let visitor = try await server.visitor()
            #expect(try await server.http.request("GET", "/v1/conversations", token: visitor.token).status == 200)
            #expect(try await server.http.request("POST", "/v1/visitor/logout", token: visitor.token).status == 204)
            for variant in [visitor.token] + Self.variants(of: visitor.token) {
                #expect(try await server.http.request("GET", "/v1/conversations", token: variant).status == 401, "\(variant.suffix(3))")
            }
        }
    }
}
