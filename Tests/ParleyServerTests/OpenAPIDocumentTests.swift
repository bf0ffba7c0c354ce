import Foundation
import ParleyCore
@testable import ParleyServer
import ParleyTestSupport
import Testing

/// The OpenAPI document (`Sources/ParleyServer/OpenAPI/openapi.json`) against the code: it lists
/// exactly the endpoint table, its references resolve, the server serves it as it is, and real
/// answers of the main flows are what it says (`+Flows.swift`). CI also runs schemathesis against
/// it (`Tests/API`).
@Suite(.timeLimit(.minutes(3)))
struct OpenAPIDocumentTests {
    let spec: OpenAPISpec

    init() throws {
        spec = try OpenAPISpec.inRepository()
    }

    /// An endpoint as the document writes it: `GET /v1/conversations/{id}`.
    static func documented(_ endpoint: AnyEndpoint) -> String {
        let path = endpoint.template.split(separator: "/").map { $0.hasPrefix(":") ? "{\($0.dropFirst())}" : String($0) }
        return "\(endpoint.method.rawValue) /" + path.joined(separator: "/")
    }

    @Test func theDocument_listsEveryEndpointOfTheTable_andNothingElse() {
        let table = Set(AnyEndpoint.all.map(Self.documented))
        let document = Set(spec.operations)
        #expect(table.subtracting(document).isEmpty, "in the table but not documented: \(table.subtracting(document).sorted())")
        #expect(document.subtracting(table).isEmpty, "documented but not in the table: \(document.subtracting(table).sorted())")
    }

    @Test func everyOperation_namesItsPathParameters_andHasAnOperationID() {
        var operationIDs: [String] = []
        for endpoint in AnyEndpoint.all {
            let label = Self.documented(endpoint)
            let parts = label.split(separator: " ")
            guard let operation = spec.operation(String(parts[0]), String(parts[1])) else { continue }
            let documented = (operation["parameters"]?.array ?? []).filter { $0["in"]?.string == "path" }.compactMap { $0["name"]?.string }
            #expect(documented == Endpoint<Void, Void>(endpoint.method, endpoint.template).parameterNames, "\(label): path parameters")
            #expect(operation["responses"]?.object?.isEmpty == false, "\(label): no responses")
            #expect(operation["security"] != nil, "\(label): no security requirement")
            if let id = operation["operationId"]?.string { operationIDs.append(id) } else { Issue.record("\(label): no operationId") }
        }
        #expect(Set(operationIDs).count == operationIDs.count, "an operationId is used twice")
    }

    @Test func everyReference_resolves() {
        #expect(spec.document["openapi"]?.string == "3.1.0")
        #expect(spec.unresolvedReferences.isEmpty, "unresolved: \(Set(spec.unresolvedReferences).sorted())")
    }

    @Test func theValidator_refusesWhatTheSchemasRefuse() throws {
        let conversation = try JSONValue.parse(Data("""
            {"app_id":"app_01KE6SJTQM8N3V5Q2R7H4K9D6W","attributes":{},"created_at":"2026-11-21T19:40:55.125Z",
             "id":"cnv_01M7ZT0GEN5R8K2W6Y9C3F7H1Q","last_seq":1,"queue_id":"que_01KE6SJTQM4F7B2X9C3M6P8T1S","state":"queued",
             "updated_at":"2026-11-21T19:40:55.125Z","visitor_id":"vis_01M7W0CREA6T9X2B5E8H1K4N7Q"}
            """.utf8))
        let schema = JSONValue.object(["$ref": .string("#/components/schemas/Conversation")])
        #expect(spec.validator.problems(conversation, against: schema).isEmpty)
        guard case .object(var members) = conversation else { return }
        members["state"] = .string("closed")
        members["id"] = .string("cnv_lowercase")
        members["last_seq"] = .number(1.5)
        members["created_at"] = .string("yesterday")
        members["visitor_id"] = nil
        let problems = spec.validator.problems(.object(members), against: schema)
        for part in ["$.state", "$.id", "$.last_seq", "$.created_at", "missing required visitor_id"] {
            #expect(problems.contains { $0.contains(part) }, "\(part) was let through: \(problems)")
        }

        let event = JSONValue.object(["type": .string("message"), "seq": .integer(1)])
        #expect(!spec.validator.problems(event, against: .object(["$ref": .string("#/components/schemas/ConversationEvent")])).isEmpty)
    }

    @Test func theServer_servesTheDocumentInTheRepository() async throws {
        try await withServer { server in
            let reply = try await server.http.request("GET", "/v1/openapi.json")
            #expect(reply.status == 200)
            #expect(reply.body == (try Data(contentsOf: OpenAPISpec.fileURL)))
            #expect(reply.headers["content-type"] == "application/json; charset=utf-8")
            #expect(reply.headers["cache-control"] == "public, max-age=300")
            let etag = try #require(reply.headers["etag"])
            let again = try await server.http.request("GET", "/v1/openapi.json", headers: ["If-None-Match": etag])
            #expect(again.status == 304 && again.body.isEmpty)
        }
    }
}

/// Calls a server and checks every answer against the document: a documented status with a body
/// its schema takes. Each call also states the status the flow expects.
struct DocumentedCalls {
    let http: TestHTTP
    let spec: OpenAPISpec
    /// Every way an answer differed from the document or from the expected status.
    private(set) var problems: [String] = []
    /// The operations and statuses seen, as `POST /v1/conversations 201`.
    private(set) var seen: Set<String> = []

    /// Calls `template` (the document's path, `{name}` filled from `values`) and checks the answer.
    @discardableResult
    mutating func call(
        _ expected: Int, _ method: String, _ template: String, _ values: [String: String] = [:], query: String = "",
        body: Data? = nil, token: String? = nil, headers: [String: String] = [:]
    ) async throws -> TestHTTP.Reply {
        var path = template
        for (name, value) in values { path = path.replacingOccurrences(of: "{\(name)}", with: value) }
        let reply = try await http.request(method, path + query, body: body, token: token, headers: headers)
        if reply.status != expected {
            problems.append("\(method) \(path)\(query): expected \(expected), got \(reply.status) \(String(decoding: reply.body.prefix(300), as: UTF8.self))")
        }
        problems += spec.problems(method, template, status: reply.status, contentType: reply.headers["content-type"], body: reply.body)
        seen.insert("\(method) \(template) \(reply.status)")
        return reply
    }

    /// The same with a JSON body.
    @discardableResult
    mutating func call(
        _ expected: Int, _ method: String, _ template: String, _ values: [String: String] = [:], query: String = "",
        json: some Encodable, token: String? = nil, headers: [String: String] = [:]
    ) async throws -> TestHTTP.Reply {
        try await call(expected, method, template, values, query: query, body: try ParleyJSON.encode(json), token: token, headers: headers)
    }
}
