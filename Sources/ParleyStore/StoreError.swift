/// The one error a store throws; the server maps each kind to one HTTP status.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    enum Code: Hashable, Sendable {
        case notFound
        case idempotencyConflict
        case invalidState
        case duplicate
        case invalidInput
        case atCapacity
    }

    let code: Code
    /// What went wrong, fit to show a developer (never contains secrets or message bodies).
    public let message: String

    /// The thing does not exist in the caller's app (or the caller may not know it does).
    public static func notFound(_ message: String) -> StoreError { .init(code: .notFound, message: message) }
    /// A client message id was reused with different content.
    public static func idempotencyConflict(_ message: String) -> StoreError { .init(code: .idempotencyConflict, message: message) }
    /// The change does not fit the conversation's state (an agent writing into a conversation not theirs…).
    public static func invalidState(_ message: String) -> StoreError { .init(code: .invalidState, message: message) }
    /// A unique value (an agent's email) is taken.
    public static func duplicate(_ message: String) -> StoreError { .init(code: .duplicate, message: message) }

    /// The input breaks a rule only the store can check (the merged attributes of a visitor…).
    public static func invalidInput(_ message: String) -> StoreError { .init(code: .invalidInput, message: message) }

    /// The agent a conversation would go to already handles as many as their capacity allows.
    /// Checked under the agent's row lock, so it holds whichever node assigns (decision 0006).
    public static func atCapacity(_ message: String) -> StoreError { .init(code: .atCapacity, message: message) }

    public var isNotFound: Bool { code == .notFound }
    public var isIdempotencyConflict: Bool { code == .idempotencyConflict }
    public var isInvalidState: Bool { code == .invalidState }
    public var isDuplicate: Bool { code == .duplicate }
    public var isInvalidInput: Bool { code == .invalidInput }
    public var isAtCapacity: Bool { code == .atCapacity }

    public var description: String { message }
}
