import Foundation

/// A user of an app whose identity the app proved, and what the proof said about them.
public struct VerifiedUser: Sendable, Hashable {
    /// How the identity was proved.
    public enum Method: String, Sendable, Hashable, Codable {
        /// The app's own auth service accepted the user id and security key.
        case authService = "auth_service"
        /// A signed user token (JWT) from the app's backend.
        case token
        /// An HMAC-SHA256 of the user id with the app's secret key.
        case identityHash = "identity_hash"
    }

    /// The app's id for the user (the token's `sub`).
    public var userID: String
    /// A name from the verified source, if it gave one.
    public var name: String?
    /// An email from the verified source, if it gave one.
    public var email: String?
    /// Attributes from the verified source.
    public var attributes: [String: String]
    public var method: Method

    public init(userID: String, name: String? = nil, email: String? = nil, attributes: [String: String] = [:], method: Method) {
        self.userID = userID
        self.name = name
        self.email = email
        self.attributes = attributes
        self.method = method
    }
}

/// Why an identity was not accepted: always a refusal, never a fallback to anonymous.
public struct IdentityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What went wrong, safe to show to the app developer (never a key or a token).
    public var reason: String
    /// True when the app's side could not be asked (auth service or JWKS down, slow, or answering
    /// nonsense): a 503 rather than a 401, though the user is refused either way (fail closed).
    public var isUnavailable: Bool

    public static func refused(_ reason: String) -> IdentityError { IdentityError(reason: reason, isUnavailable: false) }
    public static func unavailable(_ reason: String) -> IdentityError { IdentityError(reason: reason, isUnavailable: true) }

    public var description: String { reason }
}

/// The longest user id accepted: an app's ids (UUIDs, numbers, emails) fit comfortably.
let maximumUserIDLength = 256

/// Checks a user id's shape: 1…256 characters, no control characters.
func validateUserID(_ userID: String) throws {
    guard !userID.isEmpty, userID.count <= maximumUserIDLength,
          !userID.unicodeScalars.contains(where: { CharacterSet.controlCharacters.contains($0) })
    else { throw IdentityError.refused("user_id: 1 to \(maximumUserIDLength) characters, no control characters") }
}
