import Foundation
import ParleyCore
import ParleyKit
@testable import ParleyServer
import Testing

/// The pure parts of push delivery: what a push shows, the providers' request bodies and headers
/// (clear and encrypted, checked by ParleyKit's reader), and how the providers' answers are read.
struct PushMessageTests {
    let conversation = ConversationID.generate()

    func job(_ kind: PushContent.Kind, text: String? = "Your parcel left the depot", agent: String? = "Grace") -> PushJob {
        PushJob(kind: kind, visitorID: .generate(), seq: 14, agentName: agent, text: text, createdAt: Date())
    }

    @Test func content_showsTheAgentAndAPreview_orANeutralLine_inTheDevicesLanguage() {
        let message = PushMessages.content(job(.message), conversation: conversation, appTitle: "Acme", previews: true, badge: 2, locale: nil)
        #expect(message == PushContent(kind: .message, conversationID: conversation, seq: 14, title: "Grace", body: "Your parcel left the depot", badge: 2))
        let private_ = PushMessages.content(job(.message), conversation: conversation, appTitle: "Acme", previews: false, badge: 2, locale: "de-AT")
        #expect(private_.body == "Neue Nachricht" && private_.title == "Grace")
        let ended = PushMessages.content(job(.ended, text: nil, agent: nil), conversation: conversation, appTitle: "Acme", previews: true, badge: 0, locale: "en")
        #expect(ended.title == "Acme" && ended.body == "The conversation has ended.")
        let page = PushMessages.content(job(.page, text: "Returns form"), conversation: conversation, appTitle: "Acme", previews: true, badge: 1, locale: nil)
        #expect(page.body == "Sent you a page: Returns form")
        let long = PushMessages.preview(String(repeating: "word ", count: 100) + "\nsecond line")
        #expect(long?.count == PushMessages.previewLength && long?.hasSuffix("…") == true && long?.contains("\n") == false)
        #expect(PushMessages.preview("  \n ") == nil)
    }

    @Test func apns_inTheClear_showsTheContent_andParleyKitReadsIt() throws {
        let content = PushContent(kind: .message, conversationID: conversation, seq: 14, title: "Grace", body: "Hello", badge: 3)
        let body = try PushMessages.apnsBody(content, envelope: try PushMessages.envelope(content, keys: nil))
        let json = try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
        let aps = try #require(json["aps"] as? [String: Any])
        #expect((aps["alert"] as? [String: String]) == ["title": "Grace", "body": "Hello"])
        #expect(aps["badge"] as? Int == 3 && aps["thread-id"] as? String == conversation.rawValue && aps["mutable-content"] == nil)
        #expect(try ParleyPush.decryptNotification(json, keys: nil) == content)
        #expect(try ParleyPush.handleRemoteNotification(json) == conversation)
    }

    @Test func encrypted_apnsAndFCM_carryOnlyCiphertextAndTheConversation_openedByTheDevicesKeys() throws {
        let keys = PushKeys()
        let registered = PushEncryptionKeys(publicKey: keys.publicKey, authSecret: keys.authSecretText)
        let content = PushContent(kind: .message, conversationID: conversation, seq: 14, title: "Grace", body: "The secret plan", badge: 1)
        let envelope = try PushMessages.envelope(content, keys: registered)
        #expect(envelope.content == nil && envelope.encrypted != nil)

        let apns = try PushMessages.apnsBody(content, envelope: envelope)
        let fcm = try PushMessages.fcmBody(content, envelope: envelope, token: "fcm-token-0123456789", pushID: "psh_1")
        for body in [apns, fcm] {
            let text = String(decoding: body, as: UTF8.self)
            #expect(!text.contains("secret plan") && !text.contains("Grace") && text.contains(conversation.rawValue))
        }
        let apnsJSON = try #require(try JSONSerialization.jsonObject(with: apns) as? [String: Any])
        let aps = try #require(apnsJSON["aps"] as? [String: Any])
        #expect(aps["mutable-content"] as? Int == 1 && aps["badge"] == nil)
        #expect((aps["alert"] as? [String: String])?["loc-key"] == "PARLEY_PUSH_BODY")
        #expect(try ParleyPush.decryptNotification(apnsJSON, keys: keys) == content)

        let fcmJSON = try #require(try JSONSerialization.jsonObject(with: fcm) as? [String: Any])
        let message = try #require(fcmJSON["message"] as? [String: Any])
        #expect(message["notification"] == nil && message["token"] as? String == "fcm-token-0123456789")
        let data = try #require(message["data"] as? [String: String], "FCM's data values are strings")
        #expect(try ParleyPush.decryptNotification(data, keys: keys) == content)
        #expect(throws: ParleyPush.Failure.self) { try ParleyPush.decryptNotification(data, keys: PushKeys()) }
    }

    @Test func fcm_inTheClear_isANotificationTaggedByConversation() throws {
        let content = PushContent(kind: .ended, conversationID: conversation, seq: 20, title: "Acme", body: "The conversation has ended.", badge: 0)
        let body = try PushMessages.fcmBody(content, envelope: try PushMessages.envelope(content, keys: nil), token: "t-0123456789abcdefghij", pushID: "psh_2")
        let message = try #require((try JSONSerialization.jsonObject(with: body) as? [String: Any])?["message"] as? [String: Any])
        #expect((message["notification"] as? [String: String]) == ["title": "Acme", "body": "The conversation has ended."])
        let android = try #require(message["android"] as? [String: Any])
        #expect(android["priority"] as? String == "NORMAL" && android["collapse_key"] as? String == "psh_2")
        #expect((android["notification"] as? [String: Any])?["tag"] as? String == conversation.rawValue)
    }

    @Test func apnsHeaders_areStablePerPush_andTheIDIsAUUID() throws {
        let expires = Date(timeIntervalSince1970: 1_800_000_000)
        let headers = Dictionary(uniqueKeysWithValues: PushMessages.apnsHeaders(kind: .message, topic: "com.example.app", pushID: "psh_abc", expires: expires))
        #expect(headers["apns-topic"] == "com.example.app" && headers["apns-push-type"] == "alert" && headers["apns-priority"] == "10")
        #expect(headers["apns-collapse-id"] == "psh_abc" && headers["apns-expiration"] == "1800000000")
        let id = try #require(headers["apns-id"])
        #expect(UUID(uuidString: id) != nil && id == PushMessages.uuid(for: "psh_abc") && id != PushMessages.uuid(for: "psh_abd"))
        #expect(Dictionary(uniqueKeysWithValues: PushMessages.apnsHeaders(kind: .ended, topic: "t", pushID: "p", expires: expires))["apns-priority"] == "5")
    }

    @Test func providersAnswers_meanDeliveredGoneRetryOrFailed() {
        func body(_ json: String) -> Data { Data(json.utf8) }
        #expect(PushAnswers.apns(status: 200, body: Data()) == .delivered)
        #expect(PushAnswers.apns(status: 410, body: body(#"{"reason":"Unregistered","timestamp":1}"#)) == .tokenGone)
        #expect(PushAnswers.apns(status: 400, body: body(#"{"reason":"BadDeviceToken"}"#)) == .tokenGone)
        #expect(PushAnswers.apns(status: 400, body: body(#"{"reason":"DeviceTokenNotForTopic"}"#)) == .failed)
        #expect(PushAnswers.apns(status: 403, body: body(#"{"reason":"ExpiredProviderToken"}"#)) == .credentialsRefused)
        #expect(PushAnswers.apns(status: 429, body: body(#"{"reason":"TooManyRequests"}"#)) == .retry)
        #expect(PushAnswers.apns(status: 503, body: Data()) == .retry)
        let unregistered = #"{"error":{"code":404,"status":"NOT_FOUND","details":[{"errorCode":"UNREGISTERED"}]}}"#
        #expect(PushAnswers.fcm(status: 404, body: body(unregistered)) == .tokenGone)
        #expect(PushAnswers.fcm(status: 404, body: body(#"{"error":{"code":404,"status":"NOT_FOUND"}}"#)) == .failed, "a wrong project keeps the device")
        #expect(PushAnswers.fcm(status: 401, body: Data()) == .credentialsRefused)
        #expect(PushAnswers.fcm(status: 503, body: Data()) == .retry)
        #expect(PushAnswers.fcm(status: 400, body: body(#"{"error":{"status":"INVALID_ARGUMENT"}}"#)) == .failed)
    }
}
