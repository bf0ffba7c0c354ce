import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import ParleyCore

/// The visitor chat page: its static files under `/chat/` (the page, its modules, `embed.js`).
///
/// Unlike the desk, the page is made to be framed (the website embed, the desk's live preview), its
/// files go out gzipped, and its Content-Security-Policy names the app's avatar host so the avatar
/// can show without opening `img-src` to every site (docs/chat-page.md).
struct ChatController {
    let assets: StaticFiles
    let settings: AppSettings

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        // Files, not API: their paths are not in ParleyCore's endpoint table.
        router.get("chat") { request, _ in
            if !request.uri.path.hasSuffix("/") {
                // Keep the query: it is what the page is about (`?app=…&queue=…`).
                let query = request.uri.query.map { "?" + $0 } ?? ""
                return Response(status: .permanentRedirect, headers: [.location: "/chat/" + query])
            }
            return try await chatFile("index.html", request: request)
        }
        router.get("chat/**") { request, context in
            let path = context.parameters.getCatchAll().joined(separator: "/")
            return try await chatFile(path.isEmpty ? "index.html" : path, request: request)
        }
    }

    /// The page's Content-Security-Policy: no inline script or style; requests only to this server
    /// (HTTP and its WebSocket); images from here, `data:`/`blob:` (previews of files being sent) and
    /// `imageSources` (the avatar's origin); frames (the in-page viewer of inside links) only from
    /// `frameSources`; framed by `frameAncestors` (`*` by default: any website may embed the chat).
    ///
    /// - Parameter socketHost: this server's host as the browser named it (`Host`), for `ws:`/`wss:`
    ///   (`'self'` covers them in current browsers, not in every WebView still in use).
    static func contentSecurityPolicy(
        frameAncestors: [String] = ["*"], frameSources: [String] = [], imageSources: [String] = [], socketHost: String? = nil
    ) -> String {
        var connect = ["'self'"]
        if let socketHost, isSafeSource(socketHost) { connect += ["ws://\(socketHost)", "wss://\(socketHost)"] }
        let images = ["'self'", "data:", "blob:"] + imageSources.filter(isSafeSource)
        let frames = frameSources.filter(isSafeSource)
        let ancestors = frameAncestors.filter(isSafeSource)
        return [
            "default-src 'none'",
            "script-src 'self'",
            "style-src 'self'",
            "img-src " + images.joined(separator: " "),
            "media-src 'self' blob:",
            "connect-src " + connect.joined(separator: " "),
            "frame-src " + (frames.isEmpty ? "'none'" : frames.joined(separator: " ")),
            "font-src 'self'",
            "manifest-src 'self'",
            "base-uri 'none'",
            "form-action 'none'",
            "frame-ancestors " + (ancestors.isEmpty ? "'none'" : ancestors.joined(separator: " ")),
        ].joined(separator: "; ")
    }

    /// A source expression made only of what hosts, schemes and ports are written with: nothing that
    /// could end a directive or add one (`;`, `,`, spaces, quotes).
    static func isSafeSource(_ source: String) -> Bool {
        !source.isEmpty && source.count <= 300
            && source.unicodeScalars.allSatisfy { $0.isASCII && (CharacterSet.alphanumerics.contains($0) || "-._:/*[]'".unicodeScalars.contains($0)) }
    }

    /// What the app's link policy lets the page frame and be framed by: its inside hosts (the
    /// in-page viewer; `*.example.com` is a CSP wildcard too, and a host without a scheme allows
    /// `https`, and `http` only on an `http` page), and its embedding sites (with the page's own
    /// origin, for the desk's preview), or any site when it names none.
    static func frames(for policy: LinkPolicy) -> (sources: [String], ancestors: [String]) {
        (policy.insideHosts, policy.embedOrigins.isEmpty ? ["*"] : ["'self'"] + policy.embedOrigins)
    }

    /// The origin (`https://host[:port]`) of an `https` image URL, or nil.
    static func imageOrigin(_ url: String?) -> String? {
        guard let url, let components = URLComponents(string: url), components.scheme == "https", let host = components.host, !host.isEmpty
        else { return nil }
        return "https://" + host + (components.port.map { ":\($0)" } ?? "")
    }

    private func chatFile(_ path: String, request: Request) async throws -> Response {
        guard let (file, cacheControl) = assets.file(at: path) else { throw APIError.notFound("no such chat file") }
        var headers = HTTPFields()
        var imageSources: [String] = []
        var frameSources: [String] = []
        var frameAncestors = ["*"]
        if file.contentType.hasPrefix("text/html"), let app = appID(in: request) {
            if let origin = Self.imageOrigin(try? await settings.appearance(app: app).avatarURL) { imageSources.append(origin) }
            if let policy = try? await settings.linkPolicy(app: app) {
                (frameSources, frameAncestors) = Self.frames(for: policy)
            }
        }
        headers[.contentSecurityPolicy] = Self.contentSecurityPolicy(
            frameAncestors: frameAncestors, frameSources: frameSources, imageSources: imageSources, socketHost: request.head.authority)
        headers[HTTPField.Name("X-Content-Type-Options")!] = "nosniff"
        headers[HTTPField.Name("Referrer-Policy")!] = "no-referrer"
        // index.html (and embed.js, which websites load by its plain name) is revalidated every time,
        // so a new server version never runs with an old module; the files index.html names carry
        // their version and are cached for good (``StaticFiles``).
        headers[.cacheControl] = cacheControl
        // The HTML's CSP depends on the app's avatar: a cached copy must be revalidated per URL, which
        // no-cache already does (the URL carries the app).
        return assets.response(for: file, request: request, headers: headers)
    }

    private func appID(in request: Request) -> AppID? {
        guard let value = request.uri.queryParameters["app"] else { return nil }
        return AppID(validating: String(value))
    }
}
