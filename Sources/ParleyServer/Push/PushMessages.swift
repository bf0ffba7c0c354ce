import Crypto
import Foundation
import ParleyCore
import ParleyCrypto

/// What a push shows, and the providers' requests that carry it: pure functions of the job, the
/// app's settings and the device, so each shape is tested without a network.
enum PushMessages {
    /// The longest preview, in characters: a notification shows a few lines at most, and APNs
    /// refuses payloads over 4 KB.
    static let previewLength = 180

    /// The content of the push for `job`: the title (the agent's name, or the app's title), a
    /// preview when the app allows it (else a neutral line), and the badge.
    static func content(_ job: PushJob, conversation: ConversationID, appTitle: String, previews: Bool, badge: Int, locale: String?) -> PushContent {
        let strings = Strings(locale: locale)
        let body: String
        switch job.kind {
        case .message:
            body = previews ? preview(job.text) ?? strings.newMessage : strings.newMessage
        case .page:
            body = previews ? preview(job.text).map { strings.page + ": " + $0 } ?? strings.page : strings.page
        case .ended:
            body = strings.ended
        case .transferred:
            body = strings.transferred
        case .callbackOffered:
            body = strings.callbackOffered
            return PushContent(kind: job.kind, conversationID: conversation, seq: job.seq, title: appTitle, body: body, badge: badge,
                               callbackID: CallbackID(conversation: conversation), callbackAction: .dialog)
        }
        return PushContent(kind: job.kind, conversationID: conversation, seq: job.seq, title: job.agentName ?? appTitle, body: body, badge: badge)
    }

    static func preview(_ text: String?) -> String? {
        guard let text = text?.trimmingCharacters(in: .whitespacesAndNewlines), !text.isEmpty else { return nil }
        let line = text.split(whereSeparator: \.isNewline).joined(separator: " ")
        return line.count <= previewLength ? line : String(line.prefix(previewLength - 1)) + "…"
    }

    /// The `parley` member: the content in the clear, or sealed to the device's keys.
    static func envelope(_ content: PushContent, keys: PushEncryptionKeys?) throws -> PushEnvelope {
        guard let keys else { return PushEnvelope(conversationID: content.conversationID, content: content) }
        guard let publicKey = Data(base64URLEncoded: keys.publicKey), let secret = Data(base64URLEncoded: keys.authSecret) else {
            throw PushDeliveryError("the device's encryption keys are not base64url")
        }
        let plain = try ParleyJSON.encode(content)
        let receiver = try P256.KeyAgreement.PublicKey(x963Representation: publicKey)
        let sealed = try PushContentCoding.encrypt(plain, to: receiver, authSecret: secret)
        return PushEnvelope(conversationID: content.conversationID, encrypted: sealed.base64URLEncoded)
    }

    // MARK: APNs

    /// The APNs body. In the clear, the alert shows the content. Encrypted, Apple sees only the
    /// conversation (the thread) and a line the app localises (`PARLEY_PUSH_TITLE`/`_BODY` in its
    /// Localizable.strings); `mutable-content` lets the app's Notification Service Extension
    /// decrypt and show the real content (`ParleyPush.decryptNotification`).
    static func apnsBody(_ content: PushContent, envelope: PushEnvelope) throws -> Data {
        var aps: [String: Any] = ["sound": "default", "thread-id": content.conversationID.rawValue]
        if envelope.encrypted != nil {
            aps["alert"] = ["title-loc-key": "PARLEY_PUSH_TITLE", "loc-key": "PARLEY_PUSH_BODY"]
            aps["mutable-content"] = 1
        } else {
            var alert: [String: Any] = ["title": content.title]
            if let body = content.body { alert["body"] = body }
            aps["alert"] = alert
            if let badge = content.badge { aps["badge"] = badge }
        }
        let parley = try JSONSerialization.jsonObject(with: ParleyJSON.encode(envelope))
        return try JSONSerialization.data(withJSONObject: ["aps": aps, "parley": parley], options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// The APNs headers (without the provider token): an alert for the app's topic, urgent for
    /// what a person wrote, with the row's id as `apns-id` and `apns-collapse-id`, so a retry of a
    /// push that did arrive replaces it on the device instead of showing it twice.
    static func apnsHeaders(kind: PushContent.Kind, topic: String, pushID: String, expires: Date) -> [(String, String)] {
        let urgent = kind == .message || kind == .page || kind == .callbackOffered
        return [
            ("apns-topic", topic), ("apns-push-type", "alert"), ("apns-priority", urgent ? "10" : "5"),
            ("apns-id", uuid(for: pushID)), ("apns-collapse-id", String(pushID.prefix(64))),
            ("apns-expiration", String(Int64(expires.timeIntervalSince1970))),
        ]
    }

    /// A UUID made from the push's id, the same on every retry (APNs' `apns-id` must be a UUID).
    static func uuid(for pushID: String) -> String {
        var bytes = Array(SHA256.hash(data: Data(pushID.utf8)).prefix(16))
        bytes[6] = (bytes[6] & 0x0F) | 0x50  // version 5 layout: name-based
        bytes[8] = (bytes[8] & 0x3F) | 0x80  // RFC 4122 variant
        let hex = bytes.map { String(format: "%02x", $0) }.joined()
        let parts = [hex.prefix(8), hex.dropFirst(8).prefix(4), hex.dropFirst(12).prefix(4), hex.dropFirst(16).prefix(4), hex.dropFirst(20)]
        return parts.map(String.init).joined(separator: "-").uppercased()
    }

    // MARK: FCM

    /// The FCM v1 `messages:send` body. In the clear, a notification Android shows by itself, with
    /// the conversation as its tag (one notification per conversation) and the badge count. Encrypted,
    /// data only: Google sees the ciphertext and the conversation id; the app decrypts and shows it.
    /// FCM data values are strings: the envelope goes as its JSON text.
    static func fcmBody(_ content: PushContent, envelope: PushEnvelope, token: String, pushID: String) throws -> Data {
        let urgent = content.kind == .message || content.kind == .page || content.kind == .callbackOffered
        var android: [String: Any] = ["priority": urgent ? "HIGH" : "NORMAL", "collapse_key": String(pushID.prefix(64)), "ttl": "14400s"]
        var message: [String: Any] = [
            "token": token,
            "data": ["parley": String(decoding: try ParleyJSON.encode(envelope), as: UTF8.self)],
        ]
        if envelope.encrypted == nil {
            var notification: [String: Any] = ["title": content.title]
            if let body = content.body { notification["body"] = body }
            message["notification"] = notification
            var androidNotification: [String: Any] = ["tag": content.conversationID.rawValue]
            if let badge = content.badge { androidNotification["notification_count"] = badge }
            android["notification"] = androidNotification
        }
        message["android"] = android
        return try JSONSerialization.data(withJSONObject: ["message": message], options: [.sortedKeys, .withoutEscapingSlashes])
    }

    /// The lines a push shows when there is no preview, in English or German.
    struct Strings {
        var newMessage = "New message"
        var page = "Sent you a page"
        var ended = "The conversation has ended."
        var transferred = "Your conversation was passed to a colleague."
        var callbackOffered = CallbackDialogTexts.standard(for: "en").offer

        init(locale: String?) {
            if locale?.lowercased().hasPrefix("de") == true {
                newMessage = "Neue Nachricht"
                page = "Hat Ihnen eine Seite geschickt"
                ended = "Das Gespräch wurde beendet."
                transferred = "Ihr Gespräch wurde an eine Kollegin oder einen Kollegen übergeben."
                callbackOffered = CallbackDialogTexts.standard(for: "de").offer
            }
        }
    }
}

/// Why a push attempt failed before a provider answered.
struct PushDeliveryError: Error, CustomStringConvertible {
    var description: String
    /// Trying again cannot help (no key set up, no device): the push is given up at once.
    var isPermanent: Bool
    init(_ description: String, permanent: Bool = false) {
        self.description = description
        isPermanent = permanent
    }
}
