import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import Logging
import ParleyCore

/// How a ``ParleyClient`` connects and behaves. Every default is stated on its property.
public struct ParleyConfiguration: Sendable {
    /// Who the visitor is.
    public enum Identity: Sendable, Hashable {
        /// Anonymous and bound to this device: the same device is the same visitor with the same
        /// history (Pyrus' `createWith(appId)`). The device id is made once and kept in storage.
        case anonymous
        /// A user the app's own auth service vouches for (Pyrus' `createWith(appId, userId:,
        /// securityKey:)`): the server asks the service whether the key belongs to the user.
        case securityKey(userID: String, key: String)
        /// A user named by a signed token (JWT) from the app's backend: `sub` is the user id, `aud`
        /// the app id.
        case userToken(userID: String, token: String)
        /// A user proved by HMAC-SHA256 of the user id with the app's secret key, hex, computed by
        /// the app's backend.
        case identityHash(userID: String, hash: String)

        /// The app's id for the user; nil when anonymous.
        public var userID: String? { proof?.userID }

        /// What the visitor session request carries.
        var proof: IdentityProof? {
            switch self {
            case .anonymous: nil
            case .securityKey(let userID, let key): IdentityProof(userID: userID, kind: .securityKey(key))
            case .userToken(let userID, let token): IdentityProof(userID: userID, kind: .userToken(token))
            case .identityHash(let userID, let hash): IdentityProof(userID: userID, kind: .userHash(hash))
            }
        }
    }

    /// The server, e.g. `https://chat.example.com`. Required.
    public var serverURL: URL
    /// The app id (public, from the server's admin). Required.
    public var appID: AppID
    /// Who the visitor is: anonymous and bound to the device, or a user the app proves, who then
    /// has the same conversations on every device. Default ``Identity/anonymous``.
    public var identity: Identity = .anonymous
    /// The queue new conversations open in; nil uses the app's first queue. Default nil.
    public var defaultQueueID: QueueID?
    /// The visitor's display name shown to agents. Default nil.
    public var userName: String?
    /// The visitor's email shown to agents. Default nil.
    public var userEmail: String?
    /// Custom attributes shown to agents (plan, app version…). Default empty.
    public var customAttributes: [String: String] = [:]
    /// The visitor's locale, sent as the `locale` attribute. Default `Locale.current`.
    public var locale: Locale = .current
    /// Where history, the outbox and secrets are kept. Default: a `Parley` folder in the
    /// application-support directory, or the temporary directory where there is none.
    public var storage: StorageLocation = .default
    /// Where the key comes from that the files in ``storage`` are encrypted with (AES-256-GCM;
    /// there is no unencrypted setting). Default ``StorageEncryption/automatic``: a key made on
    /// first use, kept in the Keychain on Apple platforms and in a `0600` key file elsewhere.
    /// Used only when the client makes its own ``FileStorage`` (no `storage` given to the client).
    public var storageEncryption: StorageEncryption = .automatic
    /// What the app sets itself of the chat's look (title, welcome message, colour…); every field
    /// set here wins over the server's (``ParleyClient/appearance()``). Default: nothing overridden.
    public var appearance = Appearance()
    /// Reconnect delays. Default ``ReconnectPolicy/standard``.
    public var reconnectPolicy: ReconnectPolicy = .standard
    /// Where the client reads the time and waits (reconnect delays, when a message was accepted).
    /// Default the system's clock; tests pass one they move by hand.
    public var clock: any WallClock = SystemClock()
    /// Headers sent with every HTTP request and the realtime socket's upgrade (an app's gateway
    /// key, a tracing header…); they never replace `Authorization` or `Content-Type`. Default none.
    public var customHeaders: [String: String] = [:]
    /// The URLSession for HTTP requests (a proxy, a delegate of the app's…). Default nil: one of the
    /// client's own, ephemeral, never `URLSession.shared`. Ignored when ``httpTransport`` is set.
    public var urlSession: URLSession?
    /// How HTTP requests are sent. Default nil: ``URLSessionHTTPTransport`` over ``urlSession``. On
    /// Linux, pinned keys need `NIOHTTPTransport` from ParleyKitNIO.
    public var httpTransport: (any HTTPTransport)?
    /// Keys the server's certificate chain must carry one of, on HTTP and the realtime socket alike
    /// (Unblu's certificate pinning): the chain must also pass the normal trust checks. A
    /// connection to a server without a pinned key fails as a network error (and is retried, as a
    /// network in the middle may be what presents the wrong key). Needs an `https://` server and
    /// transports that check pins (``URLSessionHTTPTransport`` and `URLSessionTransport` on Apple
    /// platforms, ParleyKitNIO's on Linux); any other refuses to connect. Pin a backup key too.
    /// Default empty: the system's trust alone.
    public var pinnedKeys: [PublicKeyPin] = []
    /// The logger. Default: silent.
    public var logger: Logger = Logger(label: "parley.kit", factory: { _ in SwiftLogNoOpLogHandler() })

    /// A configuration for a server and an app, with the defaults above.
    public init(serverURL: URL, appID: AppID) {
        self.serverURL = serverURL
        self.appID = appID
    }
}

/// Where ParleyKit keeps its files.
public enum StorageLocation: Sendable, Hashable {
    /// The default location (see ``ParleyConfiguration/storage``).
    case `default`
    /// A directory of your choice (one per user; tests use a temporary one).
    case directory(URL)

    /// The directory this location names.
    public var directoryURL: URL {
        switch self {
        case .directory(let url):
            return url
        case .default:
            let base = FileManager.default.urls(for: .applicationSupportDirectory, in: .userDomainMask).first
                ?? FileManager.default.temporaryDirectory
            return base.appendingPathComponent("Parley", isDirectory: true)
        }
    }
}

/// Capped, jittered exponential backoff:
///
///     delay(attempt) = min(maximum, initial × multiplier^(attempt − 1)) × (1 + jitter × r),  r uniform in [−1, 1]
///
/// With the standard policy (initial 0.5 s, multiplier 2, maximum 30 s, jitter ±20 %):
///
/// | attempt | 1 | 2 | 3 | 4 | 5 | 6 | 7+ |
/// |---|---|---|---|---|---|---|---|
/// | delay (s) | 0.5 | 1 | 2 | 4 | 8 | 16 | 30 |
///
/// each ±20 %. The jitter spreads a crowd of clients that lost the server at the same moment.
public struct ReconnectPolicy: Sendable, Hashable {
    /// The first delay. Standard: 0.5 s.
    public var initialDelay: Duration
    /// The growth per attempt. Standard: 2.
    public var multiplier: Double
    /// The longest delay. Standard: 30 s.
    public var maximumDelay: Duration
    /// The relative jitter, 0…1. Standard: 0.2.
    public var jitter: Double
    /// How long a frame the server answers (`send`, `subscribe`, `ping`) may go without any frame
    /// coming back before the socket is taken for dead and reconnected. Standard: 10 s.
    public var answerTimeout: Duration = .seconds(10)
    /// How long a quiet socket waits before it asks the server with a `ping`. Standard: 25 s.
    public var idleProbe: Duration = .seconds(25)

    /// A policy with the given parameters (jitter is clamped to 0…1).
    public init(initialDelay: Duration, multiplier: Double, maximumDelay: Duration, jitter: Double) {
        self.initialDelay = initialDelay
        self.multiplier = multiplier
        self.maximumDelay = maximumDelay
        self.jitter = min(max(jitter, 0), 1)
    }

    /// 0.5 s × 2^(attempt−1), at most 30 s, ±20 %.
    public static let standard = ReconnectPolicy(initialDelay: .milliseconds(500), multiplier: 2, maximumDelay: .seconds(30), jitter: 0.2)

    /// The delay before reconnect attempt `attempt` (1-based), with `random` in [−1, 1].
    public func delay(attempt: Int, random: Double) -> Duration {
        let base = initialDelay.seconds * pow(multiplier, Double(max(0, attempt - 1)))
        let capped = min(maximumDelay.seconds, base)
        return .seconds(max(0, capped * (1 + jitter * min(max(random, -1), 1))))
    }
}

extension Duration {
    /// The duration in seconds, as a Double.
    var seconds: Double { Double(components.seconds) + Double(components.attoseconds) / 1e18 }
}
