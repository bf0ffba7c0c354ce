import CompressNIO
import Crypto
import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

/// A folder of static files served by parleyd (the agent desk, the visitor chat page), keyed by their
/// path under the folder's URL prefix.
///
/// Files are read once at start from a bundled resource folder, so a request can only ever name a file
/// that was listed then: there is no path to traverse. With a development folder (`--desk-dir`,
/// `--chat-dir`), the folder is listed again on every request so edits show on reload.
///
/// With ``isCompressed``, every file is also gzipped once as it is loaded (never per request), and a
/// request that accepts gzip gets that copy (`Content-Encoding: gzip`, `Vary: Accept-Encoding`).
///
/// **Versioned names.** Every file is also served under `v/<version>/<path>`, where the version is a
/// digest of the whole folder, and `index.html` names its scripts, styles and images that way. The
/// pages are ES modules without a build step, so their relative imports resolve under the same
/// prefix: one new page load fetches each file of a new version once, and never again while that
/// version lasts (`immutable`), while `index.html` itself is revalidated on every load. A path under
/// an older version (a page loaded before an upgrade) gets today's file, revalidated.
struct StaticFiles: Sendable {
    struct File: Sendable {
        let body: ByteBuffer
        /// The gzip copy, when the folder is served compressed and compressing made the file smaller.
        let gzipped: ByteBuffer?
        let contentType: String
        /// The strong validator of the uncompressed bytes; the gzip copy's is this with `-gz` inside the quotes.
        let etag: String

        var gzippedETag: String { String(etag.dropLast()) + "-gz\"" }
    }

    /// What may be served, by extension.
    static let contentTypes: [String: String] = [
        "html": "text/html; charset=utf-8",
        "css": "text/css; charset=utf-8",
        "js": "text/javascript; charset=utf-8",
        "svg": "image/svg+xml",
        "png": "image/png",
        "ico": "image/x-icon",
    ]

    /// Types worth compressing (images are compressed already, except SVG).
    static let compressibleExtensions: Set<String> = ["html", "css", "js", "svg"]

    /// `Cache-Control` of a file under the current version's prefix.
    static let immutableCaching = "public, max-age=31536000, immutable"
    /// `Cache-Control` of everything else: revalidate each time (the ETag makes that a 304).
    static let revalidated = "no-cache"

    /// The files of one reading of the folder, and its version.
    struct Snapshot: Sendable {
        let files: [String: File]
        let version: String
    }

    private let folder: URL?
    private let isCompressed: Bool
    private let snapshot: Snapshot

    /// The bundled resource folder `resource`, or the files of `developmentFolder`, re-read on each request.
    init(resource: String, developmentFolder folder: URL?, isCompressed: Bool = false) {
        self.folder = folder
        self.isCompressed = isCompressed
        snapshot = Self.load(folder ?? Bundle.module.url(forResource: resource, withExtension: nil), isCompressed: isCompressed)
    }

    /// The file at a path relative to the folder (`index.html`, `js/app.js`, `v/<version>/js/app.js`)
    /// and its `Cache-Control`, or nil.
    func file(at path: String) -> (file: File, cacheControl: String)? {
        let snapshot = folder.map { Self.load($0, isCompressed: isCompressed) } ?? snapshot
        let parts = path.split(separator: "/", maxSplits: 2, omittingEmptySubsequences: false)
        if parts.count == 3, parts[0] == "v" {
            guard let file = snapshot.files[String(parts[2])] else { return nil }
            return (file, parts[1] == snapshot.version ? Self.immutableCaching : Self.revalidated)
        }
        return snapshot.files[path].map { ($0, Self.revalidated) }
    }

    /// The answer for a file: 200 with the body (gzipped when the request accepts it), or 304 when the
    /// request's `If-None-Match` names the representation it would get. `headers` are added to both
    /// (security headers, `Cache-Control`).
    func response(for file: File, request: Request, headers extra: HTTPFields) -> Response {
        var headers = extra
        let useGzip = file.gzipped != nil && Self.acceptsGzip(request.headers[.acceptEncoding])
        let etag = useGzip ? file.gzippedETag : file.etag
        headers[.eTag] = etag
        if file.gzipped != nil { headers[.vary] = "Accept-Encoding" }
        if let match = request.headers[.ifNoneMatch], Self.matches(match, etag: etag) {
            return Response(status: .notModified, headers: headers)
        }
        headers[.contentType] = file.contentType
        if useGzip, let gzipped = file.gzipped {
            headers[.contentEncoding] = "gzip"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: gzipped))
        }
        return Response(status: .ok, headers: headers, body: .init(byteBuffer: file.body))
    }

    /// Whether an `Accept-Encoding` value accepts gzip (`gzip` or `*`, with a q-value above 0).
    static func acceptsGzip(_ value: String?) -> Bool {
        guard let value else { return false }
        for item in value.split(separator: ",") {
            let parts = item.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" || coding == "*" else { continue }
            let quality = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return quality > 0
        }
        return false
    }

    /// Whether an `If-None-Match` value (`*`, or a list of entity tags) names `etag` (weak comparison).
    static func matches(_ ifNoneMatch: String, etag: String) -> Bool {
        if ifNoneMatch.trimmingCharacters(in: .whitespaces) == "*" { return true }
        return ifNoneMatch.split(separator: ",").contains { tag in
            var tag = tag.trimmingCharacters(in: .whitespaces)
            if tag.hasPrefix("W/") { tag.removeFirst(2) }
            return tag == etag
        }
    }

    private static func load(_ folder: URL?, isCompressed: Bool) -> Snapshot {
        guard let folder, let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey])
        else { return Snapshot(files: [:], version: "0") }
        let root = folder.standardizedFileURL.path
        var files: [String: File] = [:]
        for case let url as URL in walker {
            let fileExtension = url.pathExtension.lowercased()
            guard contentTypes[fileExtension] != nil,
                  (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                  let data = try? Data(contentsOf: url)
            else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(root.count).drop { $0 == "/" })
            files[path] = file(data, extension: fileExtension, isCompressed: isCompressed)
        }
        let version = digest(Data(files.keys.sorted().map { "\($0) \(files[$0]!.etag)\n" }.joined().utf8))
        if let index = files["index.html"], let html = index.body.getString(at: index.body.readerIndex, length: index.body.readableBytes) {
            files["index.html"] = file(Data(versioned(html, version: version).utf8), extension: "html", isCompressed: isCompressed)
        }
        return Snapshot(files: files, version: version)
    }

    /// `index.html` with its own files named under `v/<version>/`: the `src` and `href` attributes
    /// that start with one of the folders files are kept in.
    static func versioned(_ html: String, version: String) -> String {
        var html = html
        for attribute in ["src", "href"] {
            for folder in ["js", "css", "img"] {
                html = html.replacingOccurrences(of: "\(attribute)=\"\(folder)/", with: "\(attribute)=\"v/\(version)/\(folder)/")
            }
        }
        return html
    }

    private static func file(_ data: Data, extension fileExtension: String, isCompressed: Bool) -> File {
        let body = ByteBuffer(bytes: data)
        let gzipped = isCompressed && compressibleExtensions.contains(fileExtension) ? gzip(body) : nil
        return File(body: body, gzipped: gzipped, contentType: contentTypes[fileExtension] ?? "application/octet-stream",
                    etag: "\"" + digest(data) + "\"")
    }

    /// The first 12 bytes of a SHA-256, in hex.
    private static func digest(_ data: Data) -> String {
        SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined()
    }

    /// The gzip copy of `body` at the best compression, or nil when it would not be smaller.
    private static func gzip(_ body: ByteBuffer) -> ByteBuffer? {
        var input = body
        guard let output = try? input.compress(with: .gzip(configuration: .init(compressionLevel: .bestCompression))),
              output.readableBytes < body.readableBytes
        else { return nil }
        return output
    }
}
