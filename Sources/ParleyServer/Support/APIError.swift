import Foundation
import HTTPTypes
import Hummingbird
import Logging
import ParleyCore
import ParleyStore

/// The one error the server answers with: a status and `{"error": {"code": "…", "message": "…"}}`.
public struct APIError: Error, HTTPResponseError, Hashable, Sendable, CustomStringConvertible {
    public let status: HTTPResponse.Status
    public let code: String
    public let message: String
    /// With `invalid_form`: the refused fields.
    public let fields: [FormValidationErrors.FieldError]?
    /// With `too_many_requests`: seconds until a try can succeed, sent as `Retry-After`.
    public let retryAfter: Int?
    /// Headers the answer carries besides the JSON (416's `Content-Range`).
    public let headers: HTTPFields

    public init(
        status: HTTPResponse.Status, code: String, message: String, fields: [FormValidationErrors.FieldError]? = nil, retryAfter: Int? = nil,
        headers: HTTPFields = [:]
    ) {
        self.status = status
        self.code = code
        self.message = message
        self.fields = fields
        self.retryAfter = retryAfter
        self.headers = headers
    }

    /// 400 `invalid_form`: answers a form refuses, each field with its code (`required`, `invalid_email`…).
    public static func invalidForm(_ errors: FormValidationErrors) -> APIError {
        .init(status: .badRequest, code: "invalid_form", message: "the form's answers are not valid: \(errors)", fields: errors.fields)
    }

    /// 400: malformed JSON, missing or invalid fields.
    public static func badRequest(_ message: String) -> APIError { .init(status: .badRequest, code: "bad_request", message: message) }
    /// 401: missing, malformed, expired or revoked token, or wrong credentials.
    public static func unauthorized(_ message: String = "a valid token is required") -> APIError {
        .init(status: .unauthorized, code: "unauthorized", message: message)
    }
    /// 403: the caller is known but may not do this (an agent calling an admin route of its own app).
    public static func forbidden(_ message: String) -> APIError { .init(status: .forbidden, code: "forbidden", message: message) }
    /// 404: absent, or present but not the caller's to see: the two are never told apart.
    public static func notFound(_ message: String = "not found") -> APIError { .init(status: .notFound, code: "not_found", message: message) }
    /// 409: the same client message id with other content, or a change that does not fit the state.
    public static func conflict(_ code: String, _ message: String) -> APIError { .init(status: .conflict, code: code, message: message) }
    /// 413: a body, message or frame over its limit.
    public static func tooLarge(_ message: String) -> APIError { .init(status: .contentTooLarge, code: "too_large", message: message) }

    /// 429: too many requests of a kind in a while (sessions, sends, logins, transcript emails);
    /// `retryAfter` seconds go out as `Retry-After`.
    public static func tooManyRequests(_ message: String, retryAfter: Int? = nil) -> APIError {
        .init(status: .tooManyRequests, code: "too_many_requests", message: message, retryAfter: retryAfter)
    }

    /// 503 `unavailable`: the server cannot serve now (its database does not answer); try another
    /// node or later.
    public static func unavailable(_ message: String) -> APIError {
        .init(status: .serviceUnavailable, code: "unavailable", message: message)
    }

    /// 503 `identity_unavailable`: the app's auth service or key set could not be asked; the user is
    /// refused (fail closed) and may try again.
    public static func identityUnavailable(_ message: String) -> APIError {
        .init(status: .serviceUnavailable, code: "identity_unavailable", message: message)
    }

    public var description: String { "\(status.code) \(code): \(message)" }

    /// True for a 5xx: the server's fault, worth logging.
    public var isServerFault: Bool { status.code >= 500 }

    /// The error as a body value.
    public var body: ErrorBody { ErrorBody(code: code, message: message, fields: fields) }

    public func response(from request: Request, context: some RequestContext) throws -> Response {
        let data = try ParleyJSON.encode(body)
        var headers = self.headers
        headers[.contentType] = "application/json; charset=utf-8"
        if status == .unauthorized { headers[.wwwAuthenticate] = "Bearer" }
        if let retryAfter { headers[.retryAfter] = String(retryAfter) }
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    /// Maps any error to the API error a client sees; unknown errors become a 500 that reveals nothing.
    public static func from(_ error: any Error) -> APIError {
        switch error {
        case let error as APIError:
            return error
        case let error as StoreError:
            if error.isNotFound { return .notFound(error.message) }
            if error.isIdempotencyConflict { return .conflict("idempotency_conflict", error.message) }
            if error.isDuplicate { return .conflict("duplicate", error.message) }
            if error.isInvalidInput { return .badRequest(error.message) }
            if error.isAtCapacity { return .conflict("at_capacity", error.message) }
            return .conflict("invalid_state", error.message)
        case let error as Validation.Failure:
            return error.isTooLarge ? .tooLarge(error.description) : .badRequest(error.description)
        case let error as any HTTPResponseError:
            // Hummingbird's own errors (no route, body over the limit, …), in our shape.
            let detail = (error as? HTTPError)?.body
            switch error.status {
            case .contentTooLarge: return .tooLarge("the request body is over \(Limits.maxRequestBodyBytes) bytes")
            case .notFound: return .notFound()
            case .methodNotAllowed: return .init(status: .methodNotAllowed, code: "method_not_allowed", message: "method not allowed")
            case .badRequest: return .badRequest(detail ?? "bad request")
            case .unauthorized: return .unauthorized()
            default: return .init(status: error.status, code: "http_\(error.status.code)", message: detail ?? error.status.reasonPhrase)
            }
        default:
            return .init(status: .internalServerError, code: "internal", message: "the server failed; the request may be retried")
        }
    }
}

/// Turns every error thrown by a route into the one JSON error body, and logs server faults.
struct ErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        do {
            return try await next(request, context)
        } catch {
            let apiError = APIError.from(error)
            if apiError.isServerFault {
                context.logger.error("request failed", metadata: ["error.type": "\(String(reflecting: type(of: error)))", "error": "\(error)"])
            }
            return try apiError.response(from: request, context: context)
        }
    }
}

extension DecodingError {
    /// A short explanation naming the field, without echoing input values.
    var fieldMessage: String {
        func path(_ context: Context) -> String {
            let names = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }
            return names.isEmpty ? "body" : names.joined(separator: ".")
        }
        switch self {
        case .keyNotFound(let key, let context):
            let parent = path(context)
            return "missing field \(parent == "body" ? key.stringValue : parent + "." + key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "wrong type for \(path(context))"
        case .dataCorrupted(let context):
            if context.codingPath.isEmpty { return "the body is not valid JSON" }
            return "invalid value for \(path(context)): \(context.debugDescription)"
        @unknown default:
            return "invalid body"
        }
    }
}
