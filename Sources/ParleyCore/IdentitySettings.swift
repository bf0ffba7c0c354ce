import Foundation

/// How an app proves who its users are (verified identity), set by an admin. Each way is optional;
/// with none set every visitor is anonymous, bound to their device.
public struct IdentitySettings: Hashable, Sendable, Codable {
    /// The app's auth service: parleyd POSTs `{app_id, user_id, security_key}` to it (HTTPS).
    public var authServiceURL: String?
    /// How long an auth service's yes is remembered, in seconds (0 to 86,400). Default 300.
    public var authServiceCacheSeconds: Int
    /// Where the app publishes its public keys, for RS256 and ES256 user tokens (HTTPS).
    public var jwksURL: String?
    /// Accept HS256 user tokens signed with the app's secret key. Default false.
    public var acceptsSecretKeyTokens: Bool
    /// Accept an identity hash: HMAC-SHA256 of the user id with the app's secret key. Default false.
    public var acceptsIdentityHash: Bool
    /// Refuse anonymous visitor sessions: every visitor must prove who they are. Default false.
    public var requiresVerification: Bool

    public init(
        authServiceURL: String? = nil, authServiceCacheSeconds: Int = 300, jwksURL: String? = nil, acceptsSecretKeyTokens: Bool = false,
        acceptsIdentityHash: Bool = false, requiresVerification: Bool = false
    ) {
        self.authServiceURL = authServiceURL
        self.authServiceCacheSeconds = authServiceCacheSeconds
        self.jwksURL = jwksURL
        self.acceptsSecretKeyTokens = acceptsSecretKeyTokens
        self.acceptsIdentityHash = acceptsIdentityHash
        self.requiresVerification = requiresVerification
    }

    /// True when at least one way of proving an identity is set.
    public var acceptsAnyProof: Bool { authServiceURL != nil || jwksURL != nil || acceptsSecretKeyTokens || acceptsIdentityHash }

    /// Checks the settings' shape (the addresses themselves are checked when used).
    /// - Throws: ``Validation/Failure`` naming the field.
    public func check() throws(Validation.Failure) {
        for (field, value) in [("auth_service_url", authServiceURL), ("jwks_url", jwksURL)] {
            guard let value else { continue }
            guard value.utf8.count <= 2_048, let url = URL(string: value), let scheme = url.scheme?.lowercased(),
                  scheme == "https" || scheme == "http", let host = url.host, !host.isEmpty
            else { throw Validation.Failure(field: field, message: "an https:// URL of at most 2048 bytes") }
        }
        guard (0...86_400).contains(authServiceCacheSeconds) else {
            throw Validation.Failure(field: "auth_service_cache_seconds", message: "0 to 86400")
        }
        if requiresVerification && !acceptsAnyProof {
            throw Validation.Failure(field: "require_verification", message: "set a way to verify users first (an auth service, a JWKS URL, tokens or hashes)")
        }
    }

    enum CodingKeys: String, CodingKey {
        case authServiceURL = "auth_service_url", authServiceCacheSeconds = "auth_service_cache_seconds", jwksURL = "jwks_url"
        case acceptsSecretKeyTokens = "secret_key_tokens", acceptsIdentityHash = "identity_hash", requiresVerification = "require_verification"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        authServiceURL = try container.decodeIfPresent(String.self, forKey: .authServiceURL)
        authServiceCacheSeconds = try container.decodeIfPresent(Int.self, forKey: .authServiceCacheSeconds) ?? 300
        jwksURL = try container.decodeIfPresent(String.self, forKey: .jwksURL)
        acceptsSecretKeyTokens = try container.decodeIfPresent(Bool.self, forKey: .acceptsSecretKeyTokens) ?? false
        acceptsIdentityHash = try container.decodeIfPresent(Bool.self, forKey: .acceptsIdentityHash) ?? false
        requiresVerification = try container.decodeIfPresent(Bool.self, forKey: .requiresVerification) ?? false
    }
}

/// What a visitor session request carries to prove who the user is: the user id and one proof.
public struct IdentityProof: Hashable, Sendable {
    /// The app's id for the user.
    public var userID: String
    /// The proof itself.
    public var kind: Kind

    public enum Kind: Hashable, Sendable {
        /// A key the app's auth service checks.
        case securityKey(String)
        /// A signed user token (JWT) from the app's backend; its `sub` must be ``IdentityProof/userID``.
        case userToken(String)
        /// HMAC-SHA256 of the user id with the app's secret key, hex.
        case userHash(String)
    }

    public init(userID: String, kind: Kind) {
        self.userID = userID
        self.kind = kind
    }
}
