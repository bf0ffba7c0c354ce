import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// The agent desk's static files, keyed by their path under `/desk/`.
///
/// Files are read once at start from the bundled `Desk` folder, so a request can only ever name a file
/// that was listed then: there is no path to traverse. With a development folder (`--desk-dir`),
/// the folder is listed again on every request so edits show on reload.
struct DeskAssets: Sendable {
    struct File: Sendable {
        let body: ByteBuffer
        let contentType: String
        let etag: String
    }

    /// What the desk may serve, by extension.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/x-icon",
    ]

    /// Every desk response: no inline script or style, nothing from elsewhere, never framed.
    static let securityHeaders: [(HTTPField.Name, String)] = [
        (.contentSecurityPolicy,
         "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; "
            + "media-src 'self' data:; font-src 'self'; manifest-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
        (HTTPField.Name("X-Content-Type-Options")!, "nosniff"),
        (HTTPField.Name("X-Frame-Options")!, "DENY"),
        (HTTPField.Name("Referrer-Policy")!, "no-referrer"),
        (HTTPField.Name("Cross-Origin-Opener-Policy")!, "same-origin"),
    ]

    private let folder: URL?
    private let files: [String: File]

    /// The desk bundled with the server, or the files of `folder`, re-read on each request.
    init(developmentFolder folder: URL?) {
        self.folder = folder
        files = Self.load(folder ?? Bundle.module.url(forResource: "Desk", withExtension: nil))
    }

    /// The file at a path relative to `/desk/` (`index.html`, `js/app.js`), or nil.
    func file(at path: String) -> File? {
        if let folder { return Self.load(folder)[path] }
        return files[path]
    }

    private static func load(_ folder: URL?) -> [String: File] {
        guard let folder, let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
        let root = folder.standardizedFileURL.path
        var files: [String: File] = [:]
        for case let url as URL in walker {
            guard let type = contentTypes[url.pathExtension.lowercased()],
                  (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                  let data = try? Data(contentsOf: url)
            else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(root.count).drop { $0 == "/" })
            files[path] = File(body: ByteBuffer(bytes: data), contentType: type, etag: "\"" + SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined() + "\"")
        }
        return files
    }
}
