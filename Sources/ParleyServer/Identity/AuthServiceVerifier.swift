import Crypto
import Foundation
import NIOHTTP1
import ParleyCore

/// Asks the app's own auth service whether a user id and security key belong together (Pyrus'
/// `createWith(appId, userId:, securityKey:)`).
///
/// parleyd POSTs `{"app_id", "user_id", "security_key"}` as JSON to the app's URL:
///
/// | the service answers | the user is |
/// |---|---|
/// | 200, empty or a JSON object (`name`, `email`, `attributes` read as verified) | verified |
/// | 400 or 403 | refused |
/// | anything else, a body that is not JSON, a timeout, no connection | refused as unavailable (fail closed) |
///
/// A success is remembered for the app's cache time (by a hash of app, user and key, never the key
/// itself), so a reconnecting app does not call the service each time.
public final class AuthServiceVerifier: Sendable {
    private struct Cached {
        var user: VerifiedUser
        var expires: Date
    }

    private let outbound: OutboundClient
    private let clock: any WallClock
    private let cache = Locked<[Data: Cached]>([:])
    private static let cacheCapacity = 10_000

    public init(outbound: OutboundClient, clock: any WallClock) {
        self.outbound = outbound
        self.clock = clock
    }

    /// Verifies `userID` with `securityKey` at `url`, remembering a success for `cacheSeconds`.
    /// - Throws: ``IdentityError``.
    public func verify(userID: String, securityKey: String, app: AppID, url: URL, cacheSeconds: Int) async throws -> VerifiedUser {
        try validateUserID(userID)
        guard !securityKey.isEmpty, securityKey.utf8.count <= 4_096 else {
            throw IdentityError.refused("security_key: 1 to 4096 bytes")
        }
        let key = Data(SHA256.hash(data: Data("\(app.rawValue)\u{0}\(userID)\u{0}\(securityKey)\u{0}\(url.absoluteString)".utf8)))
        let now = clock.now()
        if let hit = cache.withLock({ $0[key] }), hit.expires > now { return hit.user }

        let body = try JSONSerialization.data(withJSONObject: ["app_id": app.rawValue, "user_id": userID, "security_key": securityKey])
        let response: OutboundClient.Response
        do {
            response = try await outbound.send(.POST, url, json: body)
        } catch {
            throw IdentityError.unavailable("the app's auth service could not be asked: \(error)")
        }
        switch response.status {
        case 200:
            let user = try Self.user(userID, from: response.body)
            if cacheSeconds > 0 { remember(user, key: key, until: now.addingTimeInterval(TimeInterval(cacheSeconds))) }
            return user
        case 400, 403:
            throw IdentityError.refused("the app's auth service refused this user id and security key")
        default:
            throw IdentityError.unavailable("the app's auth service answered \(response.status)")
        }
    }

    /// Forgets every remembered success (an admin changed the app's settings).
    public func forgetAll() { cache.withLock { $0 = [:] } }

    private func remember(_ user: VerifiedUser, key: Data, until expires: Date) {
        let now = clock.now()
        cache.withLock { cache in
            if cache.count >= Self.cacheCapacity { cache = cache.filter { $0.value.expires > now } }
            if cache.count >= Self.cacheCapacity { cache.removeAll() }
            cache[key] = Cached(user: user, expires: expires)
        }
    }

    /// The profile in a 200's body: nothing, or a JSON object whose known fields are read.
    static func user(_ userID: String, from body: Data) throws -> VerifiedUser {
        var user = VerifiedUser(userID: userID, method: .authService)
        guard !body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return user }
        guard let object = try? JSONSerialization.jsonObject(with: body) as? [String: Any] else {
            throw IdentityError.unavailable("the app's auth service answered 200 with a body that is not a JSON object")
        }
        user.name = (object["name"] as? String).flatMap { $0.isEmpty ? nil : String($0.prefix(200)) }
        user.email = (object["email"] as? String).flatMap { EmailAddress.normalize($0) }
        if let attributes = object["attributes"] as? [String: Any] {
            user.attributes = attributes.compactMapValues { value in
                switch value {
                case let text as String: text
                case let number as NSNumber: number.stringValue
                default: nil
                }
            }
        }
        return user
    }
}
