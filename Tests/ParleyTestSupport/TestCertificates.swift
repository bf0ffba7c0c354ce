import Crypto
import Foundation
import SwiftASN1
import X509

/// A certificate and its key, made for tests, in the forms servers and clients take them.
public struct TestCertificate: Sendable {
    /// The certificate, PEM (`-----BEGIN CERTIFICATE-----`).
    public let certificatePEM: String
    /// The certificate, DER.
    public let certificateDER: [UInt8]
    /// Its private key (P-256), PEM (PKCS #8, `-----BEGIN PRIVATE KEY-----`).
    public let privateKeyPEM: String
    /// The base64 SHA-256 of the certificate's SubjectPublicKeyInfo, DER: its key pin, as
    /// `openssl … | openssl dgst -sha256 -binary | base64` prints it.
    public let spkiSHA256Base64: String
    /// The PEM of the certificate a client must trust to accept this one: the authority's for
    /// ``TestCertificates/server``, its own for self-signed ones.
    public let trustAnchorPEM: String
}

/// Certificates made at test time (swift-certificates, P-256 keys), once per test process: a test
/// authority, a server certificate it signed, and an impostor for the same names that it did not.
///
/// The server certificates are for `127.0.0.1`, `::1` and `localhost` (subject alternative names),
/// for server authentication, valid from an hour ago for 30 days. Serve one with
/// `TestServer.start(tls:)`.
public enum TestCertificates {
    /// The names every server certificate here is for.
    public static let names = ["127.0.0.1", "::1", "localhost"]

    /// The test certificate authority (self-signed, may sign certificates).
    public static let authority: TestCertificate = made.authority
    /// A server certificate for ``names``, signed by ``authority``: what a client that trusts the
    /// authority accepts.
    public static let server: TestCertificate = made.server
    /// A self-signed server certificate for the same ``names`` with a key of its own (a CA of its
    /// own, as self-signed certificates are): what a man in the middle would present. A client that trusts only ``authority``, or pins
    /// ``server``'s key, refuses it.
    public static let impostor: TestCertificate = made.impostor
    /// Another server certificate for ``names`` signed by ``authority``, with a key of its own:
    /// trusted by a client that trusts the authority, refused by one that pins ``server``'s key.
    public static let sibling: TestCertificate = made.sibling

    private static let made: (authority: TestCertificate, server: TestCertificate, impostor: TestCertificate, sibling: TestCertificate) = {
        do {
            let authorityKey = P256.Signing.PrivateKey()
            let authorityName = try DistinguishedName { CommonName("Parley Test Authority") }
            let authority = try sign(
                subject: authorityName, key: authorityKey.publicKey, issuer: authorityName, issuerKey: authorityKey,
                extensions: try Certificate.Extensions {
                    Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                    Critical(KeyUsage(keyCertSign: true, cRLSign: true))
                    SubjectKeyIdentifier(hash: Certificate.PublicKey(authorityKey.publicKey))
                })
            let authorityPEM = try authority.serializeAsPEM().pemString

            let serverKey = P256.Signing.PrivateKey()
            let server = try sign(
                subject: try DistinguishedName { CommonName("localhost") }, key: serverKey.publicKey,
                issuer: authorityName, issuerKey: authorityKey, extensions: try serverExtensions(authorityKey: authorityKey.publicKey))

            let siblingKey = P256.Signing.PrivateKey()
            let sibling = try sign(
                subject: try DistinguishedName { CommonName("localhost") }, key: siblingKey.publicKey,
                issuer: authorityName, issuerKey: authorityKey, extensions: try serverExtensions(authorityKey: authorityKey.publicKey))

            let impostorKey = P256.Signing.PrivateKey()
            let impostorName = try DistinguishedName { CommonName("localhost") }
            let impostor = try sign(
                subject: impostorName, key: impostorKey.publicKey, issuer: impostorName, issuerKey: impostorKey,
                extensions: try serverExtensions(authorityKey: nil))
            let impostorPEM = try impostor.serializeAsPEM().pemString

            return (
                try TestCertificate(authority, key: authorityKey, trustAnchorPEM: authorityPEM),
                try TestCertificate(server, key: serverKey, trustAnchorPEM: authorityPEM),
                try TestCertificate(impostor, key: impostorKey, trustAnchorPEM: impostorPEM),
                try TestCertificate(sibling, key: siblingKey, trustAnchorPEM: authorityPEM)
            )
        } catch {
            fatalError("could not make the test certificates: \(error)")
        }
    }()

    /// A server certificate's extensions; `authorityKey` nil for a self-signed one, which, like
    /// `openssl req -x509` makes them, may sign certificates: a TLS client only takes a certificate
    /// for its own issuer (as its trust anchor) when it may.
    private static func serverExtensions(authorityKey: P256.Signing.PublicKey?) throws -> Certificate.Extensions {
        try Certificate.Extensions {
            if authorityKey == nil {
                Critical(BasicConstraints.isCertificateAuthority(maxPathLength: 0))
                Critical(KeyUsage(digitalSignature: true, keyCertSign: true))
            } else {
                Critical(BasicConstraints.notCertificateAuthority)
                Critical(KeyUsage(digitalSignature: true))
            }
            try ExtendedKeyUsage([.serverAuth])
            SubjectAlternativeNames([
                .ipAddress(ASN1OctetString(contentBytes: [127, 0, 0, 1])),
                .ipAddress(ASN1OctetString(contentBytes: ArraySlice(repeating: 0, count: 15) + [1])),
                .dnsName("localhost"),
            ])
            if let authorityKey {
                AuthorityKeyIdentifier(keyIdentifier: SubjectKeyIdentifier(hash: Certificate.PublicKey(authorityKey)).keyIdentifier)
            }
        }
    }

    private static func sign(
        subject: DistinguishedName, key: P256.Signing.PublicKey, issuer: DistinguishedName, issuerKey: P256.Signing.PrivateKey,
        extensions: Certificate.Extensions
    ) throws -> Certificate {
        let now = Date()
        return try Certificate(
            version: .v3, serialNumber: Certificate.SerialNumber(), publicKey: Certificate.PublicKey(key),
            notValidBefore: now.addingTimeInterval(-3600), notValidAfter: now.addingTimeInterval(30 * 24 * 3600),
            issuer: issuer, subject: subject, signatureAlgorithm: .ecdsaWithSHA256, extensions: extensions,
            issuerPrivateKey: Certificate.PrivateKey(issuerKey))
    }
}

extension TestCertificate {
    fileprivate init(_ certificate: Certificate, key: P256.Signing.PrivateKey, trustAnchorPEM: String) throws {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        certificatePEM = try certificate.serializeAsPEM().pemString
        certificateDER = serializer.serializedBytes
        privateKeyPEM = key.pemRepresentation
        // swift-crypto's DER form of a public key is its SubjectPublicKeyInfo.
        spkiSHA256Base64 = Data(SHA256.hash(data: key.publicKey.derRepresentation)).base64EncodedString()
        self.trustAnchorPEM = trustAnchorPEM
    }
}
