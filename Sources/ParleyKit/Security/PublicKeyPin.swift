import Crypto
import Foundation

/// A pinned server key: the SHA-256 of a certificate's SubjectPublicKeyInfo (its public key and
/// algorithm, DER-encoded), as HTTP Public Key Pinning wrote it, base64.
///
/// A pin names a key, not a certificate, so a server can renew its certificate without an app
/// update as long as it keeps the key. Print the pin of a server's key with:
///
/// ```sh
/// openssl s_client -connect chat.example.com:443 </dev/null 2>/dev/null \
///   | openssl x509 -pubkey -noout | openssl pkey -pubin -outform der \
///   | openssl dgst -sha256 -binary | base64
/// ```
///
/// Pin the key you serve and at least one backup key held offline (or your CA's intermediate key):
/// an app with only one pin cannot reach a server whose key had to be replaced.
public struct PublicKeyPin: Hashable, Sendable, CustomStringConvertible {
    /// The 32 bytes of the SHA-256.
    public let sha256: [UInt8]

    /// A pin from its base64 form (`"r/mIkG3eEpVdm+u/ko/cwxzOMo1bk4TyHIlByibiA5E="`); a leading
    /// `sha256/` (how HPKP headers and many tools print pins) is accepted.
    /// - Parameter base64: the base64 SHA-256 of a SubjectPublicKeyInfo.
    /// - Throws: ``ParleyError`` (invalid input) unless it is base64 of exactly 32 bytes.
    public init(base64: String) throws {
        let text = base64.hasPrefix("sha256/") ? String(base64.dropFirst("sha256/".count)) : base64
        guard let data = Data(base64Encoded: text), data.count == SHA256.byteCount else {
            throw ParleyError.invalidInput("a key pin is the base64 SHA-256 of a SubjectPublicKeyInfo (32 bytes), not \(base64)")
        }
        sha256 = Array(data)
    }

    /// The pin of a SubjectPublicKeyInfo.
    /// - Parameter subjectPublicKeyInfo: the DER bytes of the key's SubjectPublicKeyInfo.
    public init(subjectPublicKeyInfo: some DataProtocol) {
        sha256 = Array(SHA256.hash(data: subjectPublicKeyInfo))
    }

    /// The pin of the key a certificate carries.
    /// - Parameter certificateDER: an X.509 certificate, DER-encoded.
    /// - Throws: ``ParleyError`` (invalid input) when the bytes are not a certificate.
    public init(certificateDER: some Collection<UInt8>) throws {
        self.init(subjectPublicKeyInfo: try CertificateDER.subjectPublicKeyInfo(of: Array(certificateDER)))
    }

    /// The base64 form, as ``init(base64:)`` takes it.
    public var base64: String { Data(sha256).base64EncodedString() }

    /// `sha256/` and the base64 form.
    public var description: String { "sha256/\(base64)" }
}

extension Collection<PublicKeyPin> {
    /// Whether a certificate chain the server presented, already validated as trusted, carries a
    /// pinned key: its leaf's, an intermediate's or its root's (a pin on the CA's key survives the
    /// server's key being replaced). An empty set of pins admits every chain.
    /// - Parameter certificates: the chain's certificates, DER-encoded, leaf first.
    /// - Returns: true when no key is pinned or one of the chain's keys is.
    public func admits(chain certificates: [[UInt8]]) -> Bool {
        guard !isEmpty else { return true }
        let pinned = Set(self)
        return certificates.contains { certificate in
            guard let pin = try? PublicKeyPin(certificateDER: certificate) else { return false }
            return pinned.contains(pin)
        }
    }
}
