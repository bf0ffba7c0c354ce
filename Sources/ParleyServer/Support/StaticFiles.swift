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

    private let folder: URL?
    private let isCompressed: Bool
    private let files: [String: File]

    /// The bundled resource folder `resource`, or the files of `developmentFolder`, re-read on each request.
    init(resource: String, developmentFolder folder: URL?, isCompressed: Bool = false) {
        self.folder = folder
        self.isCompressed = isCompressed
        files = Self.load(folder ?? Bundle.module.url(forResource: resource, withExtension: nil), isCompressed: isCompressed)
    }

    /// The file at a path relative to the folder (`index.html`, `js/app.js`), or nil.
    func file(at path: String) -> File? {
        if let folder { return Self.load(folder, isCompressed: isCompressed)[path] }
        return files[path]
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

    private static func load(_ folder: URL?, isCompressed: Bool) -> [String: File] {
        guard let folder, let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { return [:] }
        let root = folder.standardizedFileURL.path
        var files: [String: File] = [:]
        for case let url as URL in walker {
            let fileExtension = url.pathExtension.lowercased()
            guard let type = contentTypes[fileExtension],
                  (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true,
                  let data = try? Data(contentsOf: url)
            else { continue }
            let path = String(url.standardizedFileURL.path.dropFirst(root.count).drop { $0 == "/" })
            let body = ByteBuffer(bytes: data)
            let gzipped = isCompressed && compressibleExtensions.contains(fileExtension) ? gzip(body) : nil
            files[path] = File(
                body: body, gzipped: gzipped, contentType: type,
                etag: "\"" + SHA256.hash(data: data).prefix(12).map { String(format: "%02x", $0) }.joined() + "\"")
        }
        return files
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
