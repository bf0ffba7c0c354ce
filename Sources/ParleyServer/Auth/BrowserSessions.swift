import Crypto
import Foundation
import ParleyCrypto
import HTTPTypes
import Hummingbird

/// Agent sessions for the desk in a browser: the token lives in an HttpOnly cookie that scripts cannot
/// read, and every state-changing request proves it comes from the desk with a CSRF token.
///
/// - The cookie is `SameSite=Strict` and scoped to `/v1`, so other sites' pages never send it and the
///   desk's static files never carry it.
/// - The CSRF token is an HMAC of the session token with the server's key: stateless, per session,
///   useless without the cookie. A cross-site page can neither read it (no CORS) nor set the header.
/// - A cookie-authenticated request that names an `Origin` must come from this server's own origin;
///   a WebSocket upgrade must name one (browsers always do), which stops cross-site socket hijacking.
struct BrowserSessions: Sendable {
    static let cookieName = "parley_session"
    static let csrfHeader = HTTPField.Name("X-Parley-CSRF")!

    let key: SymmetricKey
    /// nil: `Secure` when the request came through a proxy over HTTPS (`X-Forwarded-Proto: https`).
    let secureCookies: Bool?

    init(tokenKey: Data, secureCookies: Bool?) {
        // A key of its own, derived from the token key, so a CSRF token can never double as anything signed with it.
        key = SymmetricKey(data: HMAC<SHA256>.authenticationCode(for: Data("parley csrf key".utf8), using: SymmetricKey(data: tokenKey)))
        self.secureCookies = secureCookies
    }

    /// The CSRF token that goes with a session token.
    func csrfToken(for sessionToken: String) -> String {
        Data(HMAC<SHA256>.authenticationCode(for: Data(sessionToken.utf8), using: key)).base64URLEncoded
    }

    /// The session token from the request's cookie, if any.
    static func cookieToken(of request: Request) -> String? {
        request.cookies[cookieName]?.value.nilIfEmpty
    }

    /// Refuses a cookie-authenticated request that does not come from the desk.
    /// - Parameter isUpgrade: a WebSocket upgrade, which must name its origin.
    func check(_ request: Request, sessionToken: String, isUpgrade: Bool) throws {
        // Every Origin a request names must be ours: a second, forged one must not hide behind the first.
        let origins = request.headers[values: .origin]
        if !origins.isEmpty {
            guard origins.allSatisfy({ Self.isSameOrigin($0, host: request.head.authority) }) else {
                throw APIError.forbidden("cross-origin requests cannot use the session cookie")
            }
        } else if isUpgrade {
            throw APIError.forbidden("a WebSocket with the session cookie must come from the desk (no Origin)")
        }
        switch request.method {
        case .get, .head, .options:
            return
        default:
            guard let sent = request.headers[Self.csrfHeader],
                  OpaqueTokens.constantTimeEquals(sent, csrfToken(for: sessionToken))
            else { throw APIError.forbidden("missing or wrong \(Self.csrfHeader.rawName) header") }
        }
    }

    /// `Set-Cookie` for a new session.
    func setCookie(token: String, lifetime: TimeInterval, request: Request) -> String {
        "\(Self.cookieName)=\(token); Path=/v1; Max-Age=\(Int(lifetime)); HttpOnly; SameSite=Strict" + (isSecure(request) ? "; Secure" : "")
    }

    /// `Set-Cookie` that removes the session cookie.
    func clearCookie(request: Request) -> String {
        "\(Self.cookieName)=; Path=/v1; Max-Age=0; HttpOnly; SameSite=Strict" + (isSecure(request) ? "; Secure" : "")
    }

    private func isSecure(_ request: Request) -> Bool {
        secureCookies ?? (request.headers[HTTPField.Name("X-Forwarded-Proto")!]?.lowercased() == "https")
    }

    /// True when `origin` (`scheme://host[:port]`) names the host the request was sent to.
    static func isSameOrigin(_ origin: String, host: String?) -> Bool {
        guard let host, let url = URL(string: origin), let originHost = url.host, url.scheme == "http" || url.scheme == "https" else { return false }
        let originAuthority = url.port.map { "\(originHost):\($0)" } ?? originHost
        return originAuthority.lowercased() == host.lowercased()
    }
}

extension String {
    fileprivate var nilIfEmpty: String? { isEmpty ? nil : self }
}
