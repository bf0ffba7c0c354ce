import Foundation
import NIOSSL

/// The certificate and key parleyd serves HTTPS and `wss:` with (``ServerConfiguration/tls``).
///
/// Both are PEM: the certificate chain leaf first (then any intermediates, as a CA hands them
/// out), and the leaf's private key (PKCS #8, or the traditional RSA or EC form).
public struct ServerTLS: Sendable {
    /// The certificate chain, PEM, leaf first.
    public var certificateChainPEM: String
    /// The leaf certificate's private key, PEM.
    public var privateKeyPEM: String

    /// A certificate chain and key already read.
    /// - Parameters:
    ///   - certificateChainPEM: the certificate chain, PEM, leaf first.
    ///   - privateKeyPEM: the leaf certificate's private key, PEM.
    public init(certificateChainPEM: String, privateKeyPEM: String) {
        self.certificateChainPEM = certificateChainPEM
        self.privateKeyPEM = privateKeyPEM
    }

    /// A certificate chain and key read from files (`fullchain.pem` and `privkey.pem`, say).
    /// - Parameters:
    ///   - certificateChainPath: the certificate chain's file, PEM, leaf first.
    ///   - privateKeyPath: the private key's file, PEM.
    /// - Throws: ``ServerTLS/Invalid`` when a file cannot be read or does not hold what it should.
    public init(certificateChainPath: String, privateKeyPath: String) throws {
        self.init(certificateChainPEM: try Self.read(certificateChainPath), privateKeyPEM: try Self.read(privateKeyPath))
        try validate()
    }

    private static func read(_ path: String) throws -> String {
        do {
            return try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw Invalid(description: "cannot read \(path) (\(error.localizedDescription))")
        }
    }

    /// Checks that the chain holds at least one certificate, that the key parses, and that it is the leaf's.
    /// - Throws: ``ServerTLS/Invalid`` saying which does not.
    public func validate() throws {
        _ = try makeTLSConfiguration()
    }

    /// The TLS configuration of the server: TLS 1.2 or later, HTTP/1.1.
    /// - Throws: ``ServerTLS/Invalid`` when the chain or the key does not parse, or the key is not the leaf's.
    func makeTLSConfiguration() throws -> TLSConfiguration {
        let chain: [NIOSSLCertificate]
        do {
            chain = try NIOSSLCertificate.fromPEMBytes(Array(certificateChainPEM.utf8))
        } catch {
            throw Invalid(description: "the certificate chain is not PEM certificates (\(error))")
        }
        guard !chain.isEmpty else { throw Invalid(description: "the certificate chain holds no PEM certificate") }
        let key: NIOSSLPrivateKey
        do {
            key = try NIOSSLPrivateKey(bytes: Array(privateKeyPEM.utf8), format: .pem)
        } catch {
            throw Invalid(description: "the private key is not a PEM private key (\(error))")
        }
        var configuration = TLSConfiguration.makeServerConfiguration(certificateChain: chain.map { .certificate($0) }, privateKey: .privateKey(key))
        configuration.minimumTLSVersion = .tlsv12
        configuration.applicationProtocols = ["http/1.1"]
        do {
            // What the server will make of it: a key that is not the leaf's fails here, with a reason.
            _ = try NIOSSLContext(configuration: configuration)
        } catch {
            throw Invalid(description: "the private key and the certificate chain cannot be served together (\(error))")
        }
        return configuration
    }

    /// A certificate chain or key that cannot be served, and why.
    public struct Invalid: Error, CustomStringConvertible {
        public var description: String
    }
}
