import ParleyCore
import Foundation
import NIOCore
import NIOSSL
import ParleyKit
import SwiftASN1
import X509

/// TLS for one outgoing connection of ParleyKitNIO: the system's trust (and ``TLSTrust``'s
/// roots), and, when keys are pinned, the pin check.
///
/// Without pins, NIOSSL verifies as usual (BoringSSL: chain, dates, host name or IP address).
/// With pins, NIOSSL's custom verification callback is the only way to see the chain, and it
/// replaces BoringSSL's checks altogether; so the callback validates the chain itself with
/// swift-certificates (RFC 5280 and the server's identity, against the same roots) and only then
/// looks for a pinned key in the validated chain. A pin never makes an untrusted chain pass.
struct ClientTLS: Sendable {
    private let context: NIOSSLContext
    private let roots: CertificateStore
    private let pins: [PublicKeyPin]

    init(trust: TLSTrust, pins: [PublicKeyPin]) throws {
        var configuration = TLSConfiguration.makeClientConfiguration()
        do {
            let extra = try trust.additionalRoots.map { try NIOSSLCertificate(bytes: Self.der($0), format: .der) }
            if !extra.isEmpty { configuration.additionalTrustRoots = [.certificates(extra)] }
            context = try NIOSSLContext(configuration: configuration)
        } catch {
            throw ParleyError.invalidInput("cannot set up TLS: \(error)")
        }
        roots = CertificateStore.systemTrustRoots.appending(contentsOf: trust.additionalRoots)
        self.pins = pins
    }

    /// The TLS handler for a connection to `host` (made on the connection's event loop: handlers
    /// are not Sendable). The pin check leaves its refusal in `verdict`.
    func handler(host: String, verdict: TLSVerdict) throws -> NIOSSLClientHandler {
        // SNI carries names only; for an IP address NIOSSL checks the certificate against the
        // connection's peer address instead.
        let sniName = Self.isIPAddress(host) ? nil : host
        if pins.isEmpty {
            return try NIOSSLClientHandler(context: context, serverHostname: sniName)
        }
        let check = PinnedChainCheck(roots: roots, pins: pins, host: host, verdict: verdict)
        return try NIOSSLClientHandler(context: context, serverHostname: sniName) { certificates, promise in
            promise.completeWithTask { await check.verify(certificates) }
        }
    }

    static func isIPAddress(_ host: String) -> Bool {
        IPv4Address(host) != nil || IPv6Address(host) != nil
    }

    static func der(_ certificate: Certificate) throws -> [UInt8] {
        var serializer = DER.Serializer()
        try serializer.serialize(certificate)
        return serializer.serializedBytes
    }
}

/// Why a TLS handshake was refused by our own checks, for the error message: NIOSSL reports only
/// that the handshake failed.
final class TLSVerdict: Sendable {
    private let reason = Locked<String?>(nil)

    func refuse(_ why: String) { reason.withLock { $0 = why } }
    var refusal: String? { reason.withLock { $0 } }
}

/// The checks of a pinned connection: a trusted chain for the host, then a pinned key in it.
struct PinnedChainCheck: Sendable {
    let roots: CertificateStore
    let pins: [PublicKeyPin]
    let host: String
    let verdict: TLSVerdict

    func verify(_ presented: [NIOSSLCertificate]) async -> NIOSSLVerificationResult {
        let chain: [Certificate]
        do {
            chain = try presented.map { try Certificate(derEncoded: try $0.toDERBytes()) }
        } catch {
            verdict.refuse("the server's certificate cannot be read")
            return .failed
        }
        guard let leaf = chain.first else {
            verdict.refuse("the server presented no certificate")
            return .failed
        }
        let isIP = ClientTLS.isIPAddress(host)
        var verifier = Verifier(rootCertificates: roots) {
            RFC5280Policy()
            ServerIdentityPolicy(serverHostname: isIP ? nil : host, serverIP: isIP ? host : nil)
        }
        let result = await verifier.validate(leaf: leaf, intermediates: CertificateStore(chain.dropFirst()))
        guard case .validCertificate(let validated) = result else {
            verdict.refuse("the server's certificate is not trusted for \(host)")
            return .failed
        }
        let ders = validated.compactMap { try? ClientTLS.der($0) }
        guard pins.admits(chain: ders) else {
            verdict.refuse("the server's certificate chain carries none of the pinned keys")
            return .failed
        }
        return .certificateVerified
    }
}

/// IP address literals, as Foundation has no parser for them on Linux.
private struct IPv4Address {
    init?(_ text: String) {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
    }
}

private struct IPv6Address {
    init?(_ text: String) {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text, &address) == 1 else { return nil }
    }
}
