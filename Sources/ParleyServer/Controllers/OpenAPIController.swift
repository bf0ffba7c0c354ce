import Crypto
import Foundation
import Hummingbird
import NIOCore
import ParleyCore

/// `GET /v1/openapi.json`: the OpenAPI 3.1 document of the HTTP API, open to everyone. The document
/// is `OpenAPI/openapi.json`, bundled with the server; `OpenAPIDocumentTests` check it against the
/// endpoint table and real answers, and CI runs schemathesis against it (`Tests/API`).
struct OpenAPIController {
    let document: OpenAPIDocument

    func addRoutes(to router: some RouterMethods<ParleyRequestContext>) {
        router.on(.server.openAPI) { request, _ -> Response in
            var headers = HTTPFields()
            headers[.eTag] = document.etag
            // It changes only with the server's version: caches may keep it for a while.
            headers[.cacheControl] = "public, max-age=300"
            if request.headers[.ifNoneMatch] == document.etag {
                return Response(status: .notModified, headers: headers)
            }
            headers[.contentType] = "application/json; charset=utf-8"
            return Response(status: .ok, headers: headers, body: .init(byteBuffer: document.body))
        }
    }
}

/// The bytes of the OpenAPI document and their entity tag, read once.
struct OpenAPIDocument: Sendable {
    let body: ByteBuffer
    let etag: String

    init(data: Data) {
        body = ByteBuffer(bytes: data)
        etag = "\"" + SHA256.hash(data: data).prefix(12).hexString + "\""
    }

    /// The document bundled with the server. Its absence is a packaging bug, not a state to serve.
    static let bundled: OpenAPIDocument = {
        guard let url = Bundle.module.url(forResource: "openapi", withExtension: "json"), let data = try? Data(contentsOf: url) else {
            preconditionFailure("openapi.json is missing from the ParleyServer bundle")
        }
        return OpenAPIDocument(data: data)
    }()
}
