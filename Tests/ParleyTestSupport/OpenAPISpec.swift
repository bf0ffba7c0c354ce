import Foundation

/// The server's OpenAPI document, read for tests: its operations, and whether a real answer is one
/// the document describes (a documented status, a documented content type, a body its schema takes).
public struct OpenAPISpec: Sendable {
    /// The whole document.
    public let document: JSONValue
    /// A validator whose `$ref`s resolve in the document.
    public let validator: JSONSchemaValidator

    /// The document in the repository (`Sources/ParleyServer/OpenAPI/openapi.json`).
    public static func inRepository() throws -> OpenAPISpec {
        try OpenAPISpec(data: Data(contentsOf: fileURL))
    }

    /// Where the document lives in the repository.
    public static var fileURL: URL {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Sources/ParleyServer/OpenAPI/openapi.json")
    }

    public init(data: Data) throws {
        document = try JSONValue.parse(data)
        validator = JSONSchemaValidator(root: document)
    }

    /// The HTTP methods an OpenAPI path item may hold.
    static let methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"]

    /// Every operation as `"GET /v1/conversations/{id}"`.
    public var operations: [String] {
        (document["paths"]?.object ?? [:]).flatMap { path, item in
            (item.object ?? [:]).keys.filter(Self.methods.contains).map { "\($0.uppercased()) \(path)" }
        }
    }

    /// The operation object of a method and an OpenAPI path (`/v1/conversations/{id}`).
    public func operation(_ method: String, _ path: String) -> JSONValue? {
        document["paths"]?[path]?[method.lowercased()]
    }

    /// The response object for a status, with a `$ref` to a shared response followed.
    public func response(_ method: String, _ path: String, status: Int) -> JSONValue? {
        guard let response = operation(method, path)?["responses"]?[String(status)] else { return nil }
        if let reference = response["$ref"]?.string { return validator.resolve(reference) }
        return response
    }

    /// Every way a real answer differs from the document; empty when it conforms.
    /// - Parameters:
    ///   - contentType: the answer's `Content-Type` (parameters such as `charset` are ignored).
    public func problems(_ method: String, _ path: String, status: Int, contentType: String?, body: Data) -> [String] {
        let label = "\(method) \(path) → \(status)"
        guard operation(method, path) != nil else { return ["\(method) \(path): not in the document"] }
        guard let response = response(method, path, status: status) else { return ["\(label): status not documented"] }
        guard let content = response["content"]?.object else {
            return body.isEmpty ? [] : ["\(label): documented without a body, answered \(body.count) bytes"]
        }
        let mediaType = contentType.map { String($0.split(separator: ";")[0]).trimmingCharacters(in: .whitespaces) } ?? ""
        // A documented range (`*/*`, `image/*`) covers the types in it, as OpenAPI says.
        let family = mediaType.split(separator: "/").first.map { "\($0)/*" } ?? ""
        guard let media = content[mediaType] ?? content[family] ?? content["*/*"] else { return ["\(label): content type \(mediaType) not documented"] }
        guard mediaType == "application/json", let schema = media["schema"] else { return [] }
        guard let value = try? JSONValue.parse(body) else { return ["\(label): the body is not JSON"] }
        return validator.problems(value, against: schema).map { "\(label): \($0)" }
    }

    /// Every `$ref` in the document that points nowhere.
    public var unresolvedReferences: [String] {
        var missing: [String] = []
        func walk(_ node: JSONValue) {
            switch node {
            case .object(let members):
                if let reference = members["$ref"]?.string, validator.resolve(reference) == nil { missing.append(reference) }
                members.values.forEach(walk)
            case .array(let items):
                items.forEach(walk)
            default:
                break
            }
        }
        walk(document)
        return missing
    }
}
