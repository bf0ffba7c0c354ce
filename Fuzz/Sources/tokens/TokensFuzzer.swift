import Foundation
import FuzzSupport
import ParleyCrypto

/// The token parsers: visitor tokens (`pv1.<payload>.<signature>`) and a user token's JWT header.
///
/// Pending: it is written against `VisitorTokenSigner`, `VisitorTokenClaims` and `JWTHeader` in
/// ParleyCrypto, which do not exist until the pure halves of `ParleyServer/Auth/VisitorTokens.swift`
/// and `UserTokenVerifier.header(of:)` move there (README.md next to this file).
///
/// Input: a mode byte, then
/// - 0: a token as text: neither parser crashes; a visitor token that verifies is exactly the one the
///   signer writes for its claims (so one session has one token, and one token hash to revoke);
/// - 1: claims (app NUL, visitor NUL, name flag byte, name NUL, 8 bytes of expiry), then a position
///   (2 bytes) and a change (1 byte): the signed token verifies to the same claims, and changing any
///   one of its characters makes it fail;
/// - 2: an `alg` NUL, a `kid` flag byte and `kid` NUL: a header holding them reads back the same.
@_cdecl("LLVMFuzzerTestOneInput")
public func tokensFuzz(_ data: UnsafePointer<UInt8>?, _ count: Int) -> CInt {
    var input = FuzzInput(data, count)
    switch input.choice(3) {
    case 0: TokensFuzzer.parse(input.restString())
    case 1: TokensFuzzer.signAndTamper(&input)
    default: TokensFuzzer.header(&input)
    }
    return 0
}

enum TokensFuzzer {
    static let signer = VisitorTokenSigner(key: Data((0..<32).map { UInt8($0) }))
    static let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    static func parse(_ text: String) {
        if let header = JWTHeader(token: text) {
            promise(text.split(separator: ".", omittingEmptySubsequences: false).count == 3, "a JWT header from \(text.debugDescription)")
            _ = header.kid
        }
        if let claims = signer.claims(of: text) {
            promise(signer.token(for: claims) == text, "\(text.debugDescription) verifies but is not the token signed for \(claims)")
        }
    }

    static func signAndTamper(_ input: inout FuzzInput) {
        let app = input.string(limit: 64), visitor = input.string(limit: 64)
        let name = input.byte() & 1 == 1 ? input.string(limit: 200) : nil
        let claims = VisitorTokenClaims(app: app, visitor: visitor, name: name, expires: Int64(input.integer(bytes: 8)))
        let token = signer.token(for: claims)
        promise(signer.claims(of: token) == claims, "\(token) does not verify to \(claims)")
        // One character changed, counting from the end (the signature's last character first), to
        // another of the base64url alphabet, or to a byte outside it.
        var bytes = Array(token.utf8)
        let position = bytes.count - 1 - (input.integer(bytes: 2) & 0x7FFF) % bytes.count
        let change = input.byte()
        if let index = alphabet.firstIndex(of: bytes[position]), change < 64 {
            bytes[position] = alphabet[index ^ Int(max(change, 1))]
        } else {
            bytes[position] = change == bytes[position] ? change ^ 1 : change
        }
        let tampered = String(decoding: bytes, as: UTF8.self)
        guard tampered != token else { return }
        let read = signer.claims(of: tampered)
        promise(read == nil, "changed at \(position), \(tampered.debugDescription) still verifies (as \(String(describing: read)))")
    }

    static func header(_ input: inout FuzzInput) {
        let alg = input.string(limit: 64)
        let kid = input.byte() & 1 == 1 ? input.string(limit: 64) : nil
        var object: [String: String] = ["alg": alg]
        object["kid"] = kid
        guard let json = try? JSONSerialization.data(withJSONObject: object) else { return }
        let token = json.base64URLEncoded + ".e30.c2lnbmF0dXJl"
        let header = JWTHeader(token: token)
        promise(header?.alg == alg && header?.kid == kid, "\(token) reads as \(String(describing: header)), not alg \(alg) kid \(String(describing: kid))")
    }
}
