import Foundation
import Hummingbird
import Logging
import NIOCore
import ParleyCore
import ParleyStore

/// Files in conversations: upload, download, and the policy (for the device's own check first,
/// and for admins to set).
struct AttachmentController {
    let attachments: AttachmentService
    let store: any ParleyStore

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        // The body is the file, raw; what the message says of it is in the query.
        router.on(.attachments.upload) { request, context in
            let caller = try context.requireCaller()
            let query = request.uri.queryParameters
            guard let name = query.get("name") else { throw APIError.badRequest("name: the file's name is required") }
            guard let clientMessageID = query.get("client_message_id") else { throw APIError.badRequest("client_message_id is required") }
            let length = request.headers[.contentLength].flatMap { Int64($0) }
            let upload = AttachmentService.Upload(
                name: name, clientMessageID: clientMessageID, caption: query.get("caption") ?? "",
                declaredType: request.headers[.contentType], declaredLength: length)
            let commit = try await attachments.upload(upload, into: try context.conversationID(), body: request.body, by: caller, context: context)
            guard let event = commit.events.last(where: { $0.message != nil }) else { throw APIError.badRequest("nothing was sent") }
            return JSONResponse(SendMessageResponse(duplicate: commit.isDuplicate, event: event), status: commit.isDuplicate ? .ok : .created)
        }

        router.on(.attachments.download) { request, context -> Response in
            let caller = try context.requireCaller()
            let id: AttachmentID = try context.identifier("attachment", notFound: "attachment not found")
            let record = try await attachments.download(id, of: try context.conversationID(), by: caller)
            // A stored row whose file is gone (disk damage, an incomplete restore) is the server's
            // fault and said so before any header: a 200 whose body never comes has clients retry
            // for ever (scripts/faults/FINDINGS.md, F2).
            guard try await store.blobs.contains(sha256: record.attachment.sha256) else {
                context.logger.error("attachment file missing", metadata: ["parley.attachment": "\(id)"])
                throw APIError(status: .internalServerError, code: "file_missing", message: "the attachment's stored file is missing")
            }
            return try AttachmentResponse(record: record, range: request.headers[.range], blobs: store.blobs).response()
        }

        router.on(.attachments.policy) { _, context in
            let caller = try context.requireCaller()
            guard let app = caller.appID else { throw APIError.notFound("the operator has no app: use /v1/admin/apps/{app}/attachments") }
            return JSONResponse(try await attachments.policy(app: app))
        }

        router.on(.attachments.adminPolicy) { _, context in
            JSONResponse(try await attachments.policy(app: try await context.administeredApp(in: store)))
        }
        router.on(.attachments.setAdminPolicy) { request, context in
            let app = try await context.administeredApp(in: store)
            try await attachments.setPolicy(try await request.decodeJSON(AttachmentPolicy.self, context: context), app: app)
            return JSONResponse(try await attachments.policy(app: app))
        }
    }
}

/// A download's response: the bytes as a download, never as a page of ours (`attachment`,
/// `nosniff`, a CSP that runs nothing), whole or the one range asked for.
struct AttachmentResponse {
    let record: AttachmentRecord
    let range: String?
    let blobs: any BlobStore

    func response() throws -> Response {
        let file = record.attachment
        var headers = HTTPFields()
        headers[.contentType] = file.contentType
        headers[.init("X-Content-Type-Options")!] = "nosniff"
        headers[.contentSecurityPolicy] = "default-src 'none'; sandbox; frame-ancestors 'none'"
        headers[.contentDisposition] = Self.disposition(file.name)
        headers[.cacheControl] = "private, max-age=86400, immutable"
        headers[.eTag] = "\"\(file.sha256)\""
        headers[.acceptRanges] = "bytes"
        let status: HTTPResponse.Status
        let bytes: Range<Int64>
        switch ByteRange.parse(range, size: file.size) {
        case .whole:
            status = .ok
            bytes = 0..<file.size
        case .partial(let part):
            status = .partialContent
            bytes = part
            headers[.contentRange] = "bytes \(part.lowerBound)-\(part.upperBound - 1)/\(file.size)"
        case .unsatisfiable:
            var refused = HTTPFields()
            refused[.contentRange] = "bytes */\(file.size)"
            throw APIError(status: .rangeNotSatisfiable, code: "range_not_satisfiable", message: "the range is outside the file's \(file.size) bytes",
                           headers: refused)
        }
        let chunks = blobs.read(sha256: file.sha256, range: bytes)
        let body = ResponseBody(contentLength: Int(bytes.count)) { writer in
            for try await chunk in chunks { try await writer.write(ByteBuffer(bytes: chunk)) }
            try await writer.finish(nil)
        }
        return Response(status: status, headers: headers, body: body)
    }

    /// `attachment; filename="…"; filename*=UTF-8''…`: an ASCII fallback (quotes and controls
    /// replaced) and the exact name percent-encoded (RFC 6266, RFC 8187).
    static func disposition(_ name: String) -> String {
        let fallback = String(name.unicodeScalars.map { scalar -> Character in
            scalar.isASCII && scalar.value >= 0x20 && scalar != "\"" && scalar != "\\" && scalar.value != 0x7F ? Character(scalar) : "_"
        })
        var allowed = CharacterSet.alphanumerics.intersection(CharacterSet(charactersIn: Unicode.Scalar(0)...Unicode.Scalar(0x7F)))
        allowed.insert(charactersIn: "!#$&+-.^_`|~")
        let encoded = name.addingPercentEncoding(withAllowedCharacters: allowed) ?? fallback
        return "attachment; filename=\"\(fallback)\"; filename*=UTF-8''\(encoded)"
    }
}
