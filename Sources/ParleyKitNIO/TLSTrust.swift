import ParleyKit
import SwiftASN1
import X509

/// Which certificate authorities ParleyKitNIO's TLS connections trust.
///
/// ```swift
/// let trust = try TLSTrust(additionalRootsPEM: [companyCAPEM])   // a private CA as well
/// let http = NIOHTTPTransport(trust: trust)
/// let realtime = NIOWebSocketTransport(trust: trust)
/// ```
public struct TLSTrust: Sendable {
    /// Roots trusted besides the system's (a company's private CA, a test CA).
    public let additionalRoots: [Certificate]

    /// The system's roots alone.
    public static let system = TLSTrust(additionalRoots: [])

    /// The system's roots and these.
    /// - Parameter additionalRoots: root certificates trusted besides the system's.
    public init(additionalRoots: [Certificate]) {
        self.additionalRoots = additionalRoots
    }

    /// The system's roots and these, given as PEM.
    /// - Parameter additionalRootsPEM: root certificates in PEM (`-----BEGIN CERTIFICATE-----`).
    /// - Throws: ``ParleyError`` (invalid input) when one is not a PEM certificate.
    public init(additionalRootsPEM: [String]) throws {
        additionalRoots = try additionalRootsPEM.map { pem in
            do {
                return try Certificate(pemEncoded: pem)
            } catch {
                throw ParleyError.invalidInput("not a PEM certificate: \(error)")
            }
        }
    }
}
