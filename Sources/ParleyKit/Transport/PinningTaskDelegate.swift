#if canImport(Darwin)
import Foundation
import Security

/// Checks a server's trust and then its pinned keys, for one URLSession task (HTTP or WebSocket).
///
/// Only the trust challenge is answered here; every other challenge gets the default handling.
/// The chain must pass the system's evaluation first (host name, dates, a trusted root), and then
/// carry a pinned key (``PublicKeyPin``'s `admits(chain:)`, which is tested on every platform).
final class PinningTaskDelegate: NSObject, URLSessionTaskDelegate, Sendable {
    let pins: [PublicKeyPin]

    init(pins: [PublicKeyPin]) {
        self.pins = pins
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didReceive challenge: URLAuthenticationChallenge) async
        -> (URLSession.AuthChallengeDisposition, URLCredential?) {
        guard challenge.protectionSpace.authenticationMethod == NSURLAuthenticationMethodServerTrust,
              let trust = challenge.protectionSpace.serverTrust else { return (.performDefaultHandling, nil) }
        guard SecTrustEvaluateWithError(trust, nil),
              let chain = SecTrustCopyCertificateChain(trust) as? [SecCertificate],
              pins.admits(chain: chain.map { Array(SecCertificateCopyData($0) as Data) }) else {
            return (.cancelAuthenticationChallenge, nil)
        }
        return (.useCredential, URLCredential(trust: trust))
    }
}
#endif
