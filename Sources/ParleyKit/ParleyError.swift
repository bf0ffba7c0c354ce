import Foundation
import ParleyCore

/// The one error ParleyKit throws. It tells a fatal error (give up, show it) from a recoverable one
/// (the SDK retries by itself), and marks authorization errors (the session must be renewed).
public struct ParleyError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case network
        case server(status: Int, code: String)
        case unauthorized
        case notFound
        case conflict(String)
        case badInput(String)
        case storage
        case stopped
        case protocolViolation
    }

    let code: Code
    /// What went wrong, for a developer (never contains message text or tokens).
    public let message: String
    /// For a form's answers the server refused (`invalid_form`): each field and why.
    public let formErrors: FormValidationErrors?

    init(_ code: Code, _ message: String, formErrors: FormValidationErrors? = nil) {
        self.code = code
        self.message = message
        self.formErrors = formErrors
    }

    /// The server could not be reached or the connection dropped: recoverable, the SDK retries.
    public static func network(_ message: String) -> ParleyError { .init(.network, message) }
    /// The token was refused: renew the session (fatal for this session, `isAuthorizationError`).
    public static func unauthorized(_ message: String) -> ParleyError { .init(.unauthorized, message) }
    /// The conversation (or app, or queue) does not exist for this user.
    public static func notFound(_ message: String) -> ParleyError { .init(.notFound, message) }
    /// Local input was refused before it was sent (empty or too long text…).
    public static func invalidInput(_ message: String) -> ParleyError { .init(.badInput("bad_request"), message) }
    /// Local storage could not be read or written.
    public static func storage(_ message: String) -> ParleyError { .init(.storage, message) }
    /// The client was stopped.
    public static let stopped = ParleyError(.stopped, "the client is stopped")

    /// An error answer from the server, by status and the error body's code.
    static func server(status: Int, body: ErrorBody?) -> ParleyError {
        let code = body?.error.code ?? "http_\(status)"
        let message = body?.error.message ?? "the server answered \(status)"
        switch status {
        case 401: return .init(.unauthorized, message)
        case 404: return .init(.notFound, message)
        case 409: return .init(.conflict(code), message)
        case 400, 413: return .init(.badInput(code), message, formErrors: body?.error.fields.map(FormValidationErrors.init(fields:)))
        default: return .init(.server(status: status, code: code), message)
        }
    }

    /// True when retrying cannot help: bad input, a refused token, something that does not exist,
    /// a conflict, a stopped client. False for network trouble and server faults (5xx).
    public var isFatal: Bool {
        switch code {
        case .network: false
        case .server(let status, _): status < 500 && status != 429
        case .storage, .unauthorized, .notFound, .conflict, .badInput, .stopped, .protocolViolation: true
        }
    }

    /// True when the server refused the credentials (Unblu's authorization errors).
    public var isAuthorizationError: Bool { code == .unauthorized }

    /// True when the error is a network failure.
    public var isNetworkError: Bool { code == .network }

    /// The server's error code (`not_found`, `idempotency_conflict`…), when the server answered one.
    public var serverCode: String? {
        switch code {
        case .server(_, let code), .conflict(let code), .badInput(let code): code
        case .unauthorized: "unauthorized"
        case .notFound: "not_found"
        default: nil
        }
    }

    public var description: String { message }
}

extension ParleyError {
    /// Checks a message (or note) text with the server's own rules, before anything is sent.
    /// - Throws: ``ParleyError/invalidInput(_:)`` for an empty, blank or too long text.
    static func checkMessageText(_ text: String) throws(ParleyError) {
        do {
            try Validation.messageText(text)
        } catch {
            throw .invalidInput(error.description)
        }
    }
}

extension Masker {
    /// `Masker.mask(_:field:)` for the SDK's own calls: a text the rules could not check in time
    /// is refused here, before anything is stored or sent.
    /// - Throws: ``ParleyError/invalidInput(_:)``.
    func masking(_ text: String, field: String = "text") throws(ParleyError) -> String {
        do {
            return try mask(text, field: field)
        } catch {
            throw .invalidInput(error.description)
        }
    }

    /// Attribute values masked, as ``masking(_:field:)``.
    func masking(_ attributes: [String: String], field: String = "attributes") throws(ParleyError) -> [String: String] {
        do {
            return try mask(attributes, field: field)
        } catch {
            throw .invalidInput(error.description)
        }
    }

    /// Form answers with their text masked, as ``masking(_:field:)``.
    func masking(_ answers: FormAnswers, field: String = "form_answers") throws(ParleyError) -> FormAnswers {
        do {
            return try mask(answers, field: field)
        } catch {
            throw .invalidInput(error.description)
        }
    }
}
