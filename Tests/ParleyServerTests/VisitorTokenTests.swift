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
