import Foundation
import ParleyCore
import ParleyCrypto

/// Reading Parley's pushes in the app: which conversation to open, and (in a Notification Service
/// Extension) what an encrypted push says.
///
/// A Parley push carries a `parley` member beside APNs' `aps` (on FCM, a `parley` data value
/// holding the same JSON as text): `PushEnvelope`. Anything else is not Parley's, and these
/// functions throw, so an app with several push senders can try Parley first.
public enum ParleyPush {
    /// Why a push could not be read.
    public enum Failure: Error, Hashable, Sendable {
        /// The push is not Parley's (no `parley` member): let another handler have it.
        case notParley
        /// Parley's, but of a version or shape this SDK does not read.
        case unreadable(String)
        /// Encrypted, and these keys cannot open it (another device's, or altered).
        case cannotDecrypt(String)
    }

    /// The conversation a tapped notification should open.
    /// - Parameter userInfo: the notification's payload (APNs' `userInfo`, or FCM's data).
    /// - Throws: ``Failure/notParley`` for pushes that are not Parley's.
    public static func handleRemoteNotification(_ userInfo: [AnyHashable: Any]) throws(Failure) -> ConversationID {
        try envelope(in: userInfo).conversationID
    }

    /// What the push says: in a Notification Service Extension, replace the notification's title
    /// and body with these (an encrypted push shows only a generic text until then).
    /// - Parameters:
    ///   - userInfo: the notification's payload (APNs' `userInfo`, or FCM's data).
    ///   - keys: the device's keys, needed only for encrypted pushes.
    /// - Throws: ``Failure``: not Parley's, unreadable, or not decryptable with `keys`.
    public static func decryptNotification(_ userInfo: [AnyHashable: Any], keys: PushKeys?) throws(Failure) -> PushContent {
        let envelope = try envelope(in: userInfo)
        if let content = envelope.content { return content }
        guard let sealed = envelope.encrypted, let body = Data(base64URLEncoded: sealed) else {
            throw .unreadable("neither content nor an encrypted body")
        }
        guard let keys else { throw .cannotDecrypt("an encrypted push needs the device's push keys") }
        let plain: Data
        do {
            plain = try keys.decrypt(body)
        } catch {
            throw .cannotDecrypt(error.description)
        }
        guard let content = try? ParleyJSON.decode(PushContent.self, from: plain) else { throw .unreadable("the decrypted content is not Parley's") }
        // The visible conversation id and the sealed one must agree, or the deep link could lie.
        guard content.conversationID == envelope.conversationID else { throw .unreadable("the conversation ids differ") }
        return content
    }

    /// The `parley` member: an object (APNs) or its JSON as text (FCM's data).
    static func envelope(in userInfo: [AnyHashable: Any]) throws(Failure) -> PushEnvelope {
        guard let member = userInfo["parley"] else { throw .notParley }
        let data: Data
        if let text = member as? String {
            data = Data(text.utf8)
        } else if JSONSerialization.isValidJSONObject(member), let encoded = try? JSONSerialization.data(withJSONObject: member) {
            data = encoded
        } else {
            throw .unreadable("the parley member is not JSON")
        }
        guard let envelope = try? ParleyJSON.decode(PushEnvelope.self, from: data) else { throw .unreadable("not a Parley push envelope") }
        guard envelope.version == 1 else { throw .unreadable("push version \(envelope.version)") }
        return envelope
    }
}
