import Foundation
import ParleyCore
import ParleyStore

/// Who a visitor session belongs to: an anonymous device, or a user the app proved (decision 0012).
///
/// A session request with a user id and one proof is verified the way the app's
/// ``IdentitySettings`` allow (auth service, user token, identity hash) and becomes the user's, on
/// every device; one without is anonymous, unless the app requires verification. A proof that
/// fails is refused, never turned into an anonymous session.
struct IdentityService: Sendable {
    let store: any ParleyStore
    let tokens: UserTokenVerifier
    let authService: AuthServiceVerifier
    /// Masks the name and attributes a session request claims (or a proof gives) before they are stored.
    let masking: MaskingService
    /// Told when a sign-in moves a device's conversations to the user (queue positions follow).
    let routing: RoutingEngine
    let clock: any WallClock

    static let settingsKey = "identity"

    /// The app's identity settings (the defaults when never set).
    func settings(app: AppID) async throws -> IdentitySettings {
        guard let text = try await store.setting(Self.settingsKey, app: app) else { return IdentitySettings() }
        return try ParleyJSON.decode(IdentitySettings.self, from: Data(text.utf8))
    }

    /// Checks and stores the app's identity settings; remembered auth-service answers are forgotten.
    /// - Throws: 400 naming the field; 404 for an unknown app.
    func setSettings(_ settings: IdentitySettings, app: AppID) async throws {
        do {
            try settings.check()
        } catch {
            throw APIError.badRequest(error.description)
        }
        let text = String(decoding: try ParleyJSON.encode(settings), as: UTF8.self)
        try await store.setSetting(Self.settingsKey, app: app, value: text, at: clock.now())
        authService.forgetAll()
    }

    /// The visitor a session request is for: verified when it carries a proof, anonymous otherwise.
    /// - Throws: 400 for malformed input, 404 for an unknown app, 401 `unauthorized` for a proof
    ///   that fails or an anonymous request to an app that requires verification, 503
    ///   `identity_unavailable` when the app's auth service or key set cannot be asked.
    func visitor(for request: VisitorSessionRequest) async throws -> Visitor {
        try Validation.deviceID(request.deviceID)
        if let name = request.name { try Validation.shortText(name, field: "name", maxLength: 100) }
        if let email = request.email { try Validation.email(email) }
        try Validation.attributes(request.attributes ?? [:])
        let proof: IdentityProof?
        do {
            proof = try request.identityProof()
        } catch {
            throw APIError.badRequest(error.description)
        }
        guard let stored = try await store.app(request.appID) else { throw APIError.notFound("app not found") }
        let settings = try await settings(app: request.appID)
        // Masked before anything is stored; the email address is left as it is: transcripts are
        // mailed to it (decision 0014).
        var claimed = VisitorProfile(email: request.email)
        if let name = request.name { claimed.name = try await masking.mask(name, app: request.appID, field: "name") }
        if let attributes = request.attributes { claimed.attributes = try await masking.mask(attributes, app: request.appID, field: "attributes") }
        guard let proof else {
            if settings.requiresVerification { throw APIError.unauthorized("this app requires a verified user: send user_id with a proof") }
            return try await store.upsertVisitor(app: request.appID, deviceID: request.deviceID, profile: claimed, at: clock.now())
        }
        let user = try await verify(proof, app: request.appID, secretKey: stored.secretKey, settings: settings)
        // What the proof said wins over what the app claimed; the fields it gave are the verified ones.
        var verifiedFields: [String] = []
        var profile = claimed
        if let name = user.name { profile.name = try await masking.mask(name, app: request.appID, field: "name"); verifiedFields.append("name") }
        if let email = user.email { profile.email = email; verifiedFields.append("email") }
        if !user.attributes.isEmpty {
            try Validation.attributes(user.attributes)
            let verified = try await masking.mask(user.attributes, app: request.appID, field: "attributes")
            profile.attributes = (claimed.attributes ?? [:]).merging(verified) { _, verified in verified }
            verifiedFields += user.attributes.keys.map { "attributes.\($0)" }
        }
        let signedIn = try await store.verifiedVisitor(
            app: request.appID, userID: user.userID, deviceID: request.deviceID, profile: profile, verifiedFields: verifiedFields,
            at: clock.now())
        if !signedIn.movedConversations.isEmpty { await routing.visitorChanged(signedIn.movedConversations, to: signedIn.visitor.id) }
        return signedIn.visitor
    }

    /// Verifies a proof the way the app allows.
    private func verify(_ proof: IdentityProof, app: AppID, secretKey: String, settings: IdentitySettings) async throws -> VerifiedUser {
        do {
            switch proof.kind {
            case .securityKey(let key):
                guard let text = settings.authServiceURL, let url = URL(string: text) else {
                    throw IdentityError.refused("this app has no auth service for security keys")
                }
                return try await authService.verify(
                    userID: proof.userID, securityKey: key, app: app, url: url, cacheSeconds: settings.authServiceCacheSeconds)
            case .userToken(let token):
                let keys = UserTokenVerifier.Keys(
                    secretKey: settings.acceptsSecretKeyTokens ? secretKey : nil, jwksURL: settings.jwksURL.flatMap(URL.init(string:)))
                let user = try await tokens.verify(token, app: app, keys: keys)
                guard user.userID == proof.userID else { throw IdentityError.refused("user_token: sub is not the user_id given") }
                return user
            case .userHash(let hash):
                guard settings.acceptsIdentityHash else { throw IdentityError.refused("this app does not accept identity hashes") }
                return try IdentityHash.verify(hash, userID: proof.userID, secretKey: secretKey)
            }
        } catch let error as IdentityError {
            if error.isUnavailable { throw APIError.identityUnavailable(error.reason) }
            throw APIError.unauthorized(error.reason)
        }
    }
}
