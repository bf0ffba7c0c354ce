import Foundation

/// One HTTP endpoint of Parley's API: a method and a path template, with the request body it takes
/// and the answer it gives as types. The server routes by it, and ParleyKit and the CLI call it, so a
/// path is written once, in the tables of `Endpoints+….swift` (docs/decisions/0010).
///
/// A table entry names its parameters in the template (`/v1/conversations/:id/messages`); a client
/// fills them with typed ids by calling the endpoint, and adds query items:
/// ```swift
/// let sent = try await http.call(.conversations.send(id), body: request, token: token)
/// let page = try await http.call(.conversations.events(id).query("after", seq), token: token)
/// ```
/// `Body` is `Void` when the request has no body; `Response` is `Void` when the answer is 204 No
/// Content, and `String` when it is a text document rather than JSON.
public struct Endpoint<Body, Response>: Sendable, Hashable, CustomStringConvertible {
    /// The HTTP method.
    public let method: EndpointMethod
    /// The path with `:name` for each parameter, as the server routes it: `/v1/conversations/:id`.
    public let template: String
    /// The values given for the template's parameters so far, percent-encoded, in order.
    private var values: [String] = []
    /// The query items added with ``query(_:_:)``, in order.
    public private(set) var queryItems: [URLQueryItem] = []

    /// An endpoint of the table. `template` starts with `/`; a segment `:name` is a parameter.
    public init(_ method: EndpointMethod, _ template: String) {
        precondition(template.hasPrefix("/"), "an endpoint's template starts with /")
        self.method = method
        self.template = template
    }

    /// The names of the template's parameters, in order (`["app", "queue"]`).
    public var parameterNames: [String] {
        Self.segments(of: template).compactMap { $0.hasPrefix(":") ? String($0.dropFirst()) : nil }
    }

    /// True when every parameter has a value, so ``path`` is a path a client can request.
    public var isComplete: Bool { values.count == parameterNames.count }

    /// The endpoint for these parameter values, in the template's order: `.conversations.send(id)`.
    /// Each value is percent-encoded as one path segment. Giving more or fewer values than the
    /// template has parameters is a programming error.
    public func callAsFunction(_ values: any PathParameter...) -> Self {
        precondition(values.count == parameterNames.count, "\(self) takes \(parameterNames.count) parameters, not \(values.count)")
        var endpoint = self
        endpoint.values = values.map { PercentEncoding.encode($0.pathValue) }
        return endpoint
    }

    /// The endpoint with a query item added; a nil value adds nothing, so optional filters read
    /// as one chain: `.lifecycle.forms.query("queue", queue)`.
    public func query(_ name: String, _ value: (some CustomStringConvertible)?) -> Self {
        guard let value else { return self }
        var endpoint = self
        endpoint.queryItems.append(URLQueryItem(name: name, value: value.description))
        return endpoint
    }

    /// The path with the parameter values in place (a parameter without a value stays `:name`).
    public var path: String {
        var remaining = values[...]
        let segments = Self.segments(of: template).map { segment -> String in
            guard segment.hasPrefix(":"), let value = remaining.popFirst() else { return String(segment) }
            return value
        }
        return "/" + segments.joined(separator: "/")
    }

    /// The path and the query, as a request names them: `/v1/conversations/cnv_…/events?after=12`.
    public var target: String {
        guard !queryItems.isEmpty else { return path }
        let query = queryItems.map { item in
            PercentEncoding.encode(item.name) + "=" + PercentEncoding.encode(item.value ?? "")
        }
        return path + "?" + query.joined(separator: "&")
    }

    /// The method and the template, without types or values: what the server routes and the tests list.
    public var erased: AnyEndpoint { AnyEndpoint(method: method, template: template) }

    public var description: String { "\(method.rawValue) \(template)" }

    private static func segments(of template: String) -> [Substring] {
        template.split(separator: "/", omittingEmptySubsequences: true)
    }
}

/// The HTTP methods the API uses.
public enum EndpointMethod: String, Hashable, Sendable, CaseIterable {
    case get = "GET"
    case post = "POST"
    case put = "PUT"
    case patch = "PATCH"
    case delete = "DELETE"
}

/// An endpoint's method and template alone, to list and compare endpoints of any types.
public struct AnyEndpoint: Hashable, Sendable, CustomStringConvertible {
    /// The HTTP method.
    public var method: EndpointMethod
    /// The path template, such as `/v1/conversations/:id`.
    public var template: String

    /// An endpoint's method and template.
    public init(method: EndpointMethod, template: String) {
        self.method = method
        self.template = template
    }

    public var description: String { "\(method.rawValue) \(template)" }
}

/// A value that fills a parameter of an endpoint's path: the typed ids and the form kinds.
public protocol PathParameter {
    /// The parameter's text, before percent-encoding.
    var pathValue: String { get }
}

extension Identifier: PathParameter {
    public var pathValue: String { rawValue }
}

extension Form.Kind: PathParameter {
    public var pathValue: String { rawValue }
}

/// A device id (`/v1/push/devices/:device`), percent-encoded like every parameter.
public struct DeviceIDParameter: PathParameter, Sendable {
    public var pathValue: String
    public init(_ deviceID: String) { pathValue = deviceID }
}

/// Percent-encoding for path segments and query items: everything but RFC 3986's unreserved
/// characters is escaped, so a value can never add a segment, a query item or a fragment.
enum PercentEncoding {
    private static let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        // Never nil for a valid String: every scalar has a UTF-8 encoding.
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? text
    }
}
