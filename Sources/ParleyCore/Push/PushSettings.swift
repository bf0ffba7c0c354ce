import Foundation

public enum PushMessageKind: IdentifierKind { public static let prefix = "psh" }
/// A push's id (`psh_…`): one event's push, the same on every retry and for every device of the
/// visitor (each device's row is `<push id>.<device id>`).
public typealias PushMessageID = Identifier<PushMessageKind>

/// `PUT /v1/admin/apps/{app}/push/apns`: the app's APNs token-auth key (Apple's `.p8`), given once
/// and never shown again. Pushes go to `topic` (the app's bundle id) in the environment each
/// device registered with.
///
/// `{"key_id":"ABC123DEFG","private_key":"-----BEGIN PRIVATE KEY-----…","team_id":"DEF123GHIJ","topic":"com.example.app"}`
public struct APNsCredentialsRequest: Hashable, Sendable, Codable {
    /// The 10-character team id of the Apple developer account.
    public var teamID: String
    /// The 10-character id of the key.
    public var keyID: String
    /// The `.p8` file's text: a P-256 private key, PKCS#8 PEM.
    public var privateKey: String
    /// The app's bundle id (the `apns-topic`).
    public var topic: String

    public init(teamID: String, keyID: String, privateKey: String, topic: String) {
        self.teamID = teamID
        self.keyID = keyID
        self.privateKey = privateKey
        self.topic = topic
    }

    enum CodingKeys: String, CodingKey { case teamID = "team_id", keyID = "key_id", privateKey = "private_key", topic }

    /// Checks the ids' and the topic's shape (the key itself is parsed by the server).
    public func check() throws(Validation.Failure) {
        let idCharacters: (Character) -> Bool = { $0.isASCII && ($0.isUppercase || $0.isNumber) }
        guard teamID.count == 10, teamID.allSatisfy(idCharacters) else {
            throw Validation.Failure(field: "team_id", message: "Apple's team id: 10 capital letters and digits")
        }
        guard keyID.count == 10, keyID.allSatisfy(idCharacters) else {
            throw Validation.Failure(field: "key_id", message: "the key's id: 10 capital letters and digits")
        }
        guard (1...255).contains(topic.count), topic.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-._".contains($0)) }) else {
            throw Validation.Failure(field: "topic", message: "the app's bundle id, such as com.example.app")
        }
        guard privateKey.count <= 4_000, privateKey.contains("-----BEGIN PRIVATE KEY-----") else {
            throw Validation.Failure(field: "private_key", message: "the .p8 file's text (-----BEGIN PRIVATE KEY-----…)")
        }
    }
}

/// A Firebase service account, as Google's JSON key file has it (other members are ignored).
public struct FCMServiceAccount: Hashable, Sendable, Codable {
    public var projectID: String
    public var privateKeyID: String?
    /// An RSA private key, PKCS#8 PEM.
    public var privateKey: String
    public var clientEmail: String
    /// Where the OAuth assertion goes. Default `https://oauth2.googleapis.com/token`.
    public var tokenURI: String?

    public init(projectID: String, privateKeyID: String? = nil, privateKey: String, clientEmail: String, tokenURI: String? = nil) {
        self.projectID = projectID
        self.privateKeyID = privateKeyID
        self.privateKey = privateKey
        self.clientEmail = clientEmail
        self.tokenURI = tokenURI
    }

    enum CodingKeys: String, CodingKey {
        case projectID = "project_id", privateKeyID = "private_key_id", privateKey = "private_key", clientEmail = "client_email"
        case tokenURI = "token_uri"
    }

    /// Google's token endpoint, when the file names none.
    public static let defaultTokenURI = "https://oauth2.googleapis.com/token"
}

/// `PUT /v1/admin/apps/{app}/push/fcm`: the app's Firebase service account (the JSON key file as
/// it is), given once and never shown again.
///
/// `{"service_account":{"client_email":"parley@example.iam.gserviceaccount.com","private_key":"-----BEGIN PRIVATE KEY-----…","project_id":"example"}}`
public struct FCMCredentialsRequest: Hashable, Sendable, Codable {
    public var serviceAccount: FCMServiceAccount

    public init(serviceAccount: FCMServiceAccount) { self.serviceAccount = serviceAccount }

    enum CodingKeys: String, CodingKey { case serviceAccount = "service_account" }

    /// Checks the account's shape (the key itself is parsed by the server).
    public func check() throws(Validation.Failure) {
        let account = serviceAccount
        guard (1...100).contains(account.projectID.count),
              account.projectID.allSatisfy({ $0.isASCII && ($0.isLowercase || $0.isNumber || $0 == "-") })
        else { throw Validation.Failure(field: "service_account.project_id", message: "a Firebase project id, such as my-app-1234") }
        guard (3...320).contains(account.clientEmail.count), account.clientEmail.contains("@") else {
            throw Validation.Failure(field: "service_account.client_email", message: "the service account's email")
        }
        guard account.privateKey.count <= 8_000, account.privateKey.contains("-----BEGIN PRIVATE KEY-----") else {
            throw Validation.Failure(field: "service_account.private_key", message: "an RSA key, PKCS#8 PEM (-----BEGIN PRIVATE KEY-----…)")
        }
        if let uri = account.tokenURI {
            guard uri.count <= 2_000, let url = URL(string: uri), url.scheme == "https" || url.scheme == "http", url.host != nil else {
                throw Validation.Failure(field: "service_account.token_uri", message: "an absolute https:// URL")
            }
        }
    }
}

/// An app's push settings, as admins see them: which providers are set up (never their keys) and
/// whether notifications show a preview of the text.
///
/// `{"apns":{"key_id":"ABC123DEFG","team_id":"DEF123GHIJ","topic":"com.example.app","updated_at":"2026-11-25T09:00:00Z"},"previews":true}`
public struct PushSettings: Hashable, Sendable, Codable {
    /// The APNs key, when one is set.
    public struct APNs: Hashable, Sendable, Codable {
        public var teamID: String
        public var keyID: String
        public var topic: String
        public var updatedAt: Date
        public init(teamID: String, keyID: String, topic: String, updatedAt: Date) {
            self.teamID = teamID
            self.keyID = keyID
            self.topic = topic
            self.updatedAt = updatedAt
        }
        enum CodingKeys: String, CodingKey { case teamID = "team_id", keyID = "key_id", topic, updatedAt = "updated_at" }
    }

    /// The Firebase service account, when one is set.
    public struct FCM: Hashable, Sendable, Codable {
        public var projectID: String
        public var clientEmail: String
        public var updatedAt: Date
        public init(projectID: String, clientEmail: String, updatedAt: Date) {
            self.projectID = projectID
            self.clientEmail = clientEmail
            self.updatedAt = updatedAt
        }
        enum CodingKeys: String, CodingKey { case projectID = "project_id", clientEmail = "client_email", updatedAt = "updated_at" }
    }

    public var apns: APNs?
    public var fcm: FCM?
    /// Notifications show the start of the agent's text (true, the default) or only who wrote.
    public var previews: Bool

    public init(apns: APNs? = nil, fcm: FCM? = nil, previews: Bool = true) {
        self.apns = apns
        self.fcm = fcm
        self.previews = previews
    }
}

/// `PATCH /v1/admin/apps/{app}/push`.
///
/// `{"previews":false}`
public struct UpdatePushSettingsRequest: Hashable, Sendable, Codable {
    public var previews: Bool?
    public init(previews: Bool? = nil) { self.previews = previews }
}

/// One push to one device, as the admins' list shows it.
public struct PushDelivery: Hashable, Sendable, Codable {
    /// Where it stands.
    public enum Status: String, Hashable, Sendable, Codable {
        case pending
        case delivered
        /// Not sent: the visitor read it first, or the device is gone.
        case skipped
        case failed
    }

    public var id: String
    public var deviceID: String
    public var kind: PushContent.Kind
    public var conversationID: ConversationID
    public var seq: Int64
    public var status: Status
    public var createdAt: Date
    public var nextAttemptAt: Date?
    /// Every attempt (the provider's status and answer), oldest first; a skip is one attempt with
    /// its reason.
    public var attempts: [WebhookAttempt]
    public var lastError: String?

    public init(
        id: String, deviceID: String, kind: PushContent.Kind, conversationID: ConversationID, seq: Int64, status: Status, createdAt: Date,
        nextAttemptAt: Date?, attempts: [WebhookAttempt], lastError: String?
    ) {
        self.id = id
        self.deviceID = deviceID
        self.kind = kind
        self.conversationID = conversationID
        self.seq = seq
        self.status = status
        self.createdAt = createdAt
        self.nextAttemptAt = nextAttemptAt
        self.attempts = attempts
        self.lastError = lastError
    }

    enum CodingKeys: String, CodingKey {
        case id, deviceID = "device_id", kind, conversationID = "conversation_id", seq, status, createdAt = "created_at"
        case nextAttemptAt = "next_attempt_at", attempts, lastError = "last_error"
    }
}

/// `GET /v1/admin/apps/{app}/push/deliveries`.
public struct PushDeliveryList: Hashable, Sendable, Codable {
    public var deliveries: [PushDelivery]
    public init(deliveries: [PushDelivery]) { self.deliveries = deliveries }
}
