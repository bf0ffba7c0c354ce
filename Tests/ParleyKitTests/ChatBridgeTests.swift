import Foundation
import ParleyCore
import ParleyKit
import Testing

/// ``ChatBridge`` against the messages the real chat page posts: the Chromium suite (Tests/Chat)
/// records them into these fixtures and checks the page still posts them; here every one must
/// decode, and every host call must make exactly the script the page was driven with.
struct ChatBridgeTests {
    struct PageMessage: Decodable {
        var channel: String
        var handler: String
        var body: JSONValueBox
    }

    struct HostCallFixture: Decodable {
        var call: JSONValueBox?
        var script: String
        var effect: String
    }

    /// Any JSON, kept as its bytes.
    struct JSONValueBox: Decodable {
        var data: Data
        init(from decoder: any Decoder) throws {
            let value = try decoder.singleValueContainer().decode(AnyJSON.self)
            data = try JSONSerialization.data(withJSONObject: value.value, options: [.fragmentsAllowed, .sortedKeys])
        }
    }

    static let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/ChatBridge")

    static func pageMessages() throws -> [PageMessage] {
        try JSONDecoder().decode([PageMessage].self, from: Data(contentsOf: folder.appendingPathComponent("page-to-host.json")))
    }

    @Test func everyRecordedPageMessage_decodes_andCiscoAliasesMeanTheSame() throws {
        let messages = try Self.pageMessages()
        #expect(messages.count >= 10)
        var events: [String: [ChatBridge.PageEvent]] = [:]
        // Cisco's Android interface (`AndroidInterface.onChatStarted()`…) is answered by an Android
        // app's own Java or Kotlin, never by ParleyKit; the page's side of it is checked by the
        // Chromium suite. Every other channel is ParleyKit's to decode.
        for message in messages where message.channel != "android-cisco" {
            let event = try ChatBridge.decode(handler: message.handler, body: message.body.data)
            events[message.channel, default: []].append(event)
        }
        let ours = Set((events["ios"] ?? []) + (events["android"] ?? []))
        // Every event the page posts in our names is one of the bridge's.
        #expect(ours.contains { if case .chatStarted = $0 { true } else { false } })
        #expect(ours.contains { if case .chatEnded(let id) = $0 { id != nil } else { false } })
        #expect(ours.contains(.chatClosed))
        #expect(ours.contains(.customerDataRequested))
        #expect(ours.contains { if case .saveTranscript(let t) = $0 { t.html.contains("<html") } else { false } })
        #expect(ours.contains { if case .printTranscript(let t) = $0 { t.html.contains("<html") } else { false } })
        #expect(ours.contains { if case .downloadAttachment(let d) = $0 { d.authorization?.hasPrefix("Bearer ") == true } else { false } })
        #expect(ours.contains { if case .openURL = $0 { true } else { false } })
        #expect(ours.contains { if case .unreadChanged = $0 { true } else { false } })

        // Cisco's handlers say the same things, with less detail.
        let cisco = events["ios-cisco"] ?? []
        let started = ours.compactMap { if case .chatStarted(let id) = $0 { id } else { nil } }
        for event in cisco {
            switch event {
            case .chatStarted(let id): #expect(started.contains(id))
            case .chatEnded, .chatClosed, .customerDataRequested, .saveTranscript, .printTranscript, .downloadAttachment: break
            default: Issue.record("Cisco's handlers carry no \(event)")
            }
        }
        #expect(cisco.contains(.chatClosed) && cisco.contains(.customerDataRequested) && cisco.contains(.chatEnded(nil)))
    }

    @Test func everyHostCall_makesTheScriptThePageWasDrivenWith() throws {
        let fixtures = try JSONDecoder().decode([HostCallFixture].self, from: Data(contentsOf: Self.folder.appendingPathComponent("host-calls.json")))
        let ours = fixtures.filter { $0.call != nil }
        #expect(ours.count >= 4)
        for fixture in ours {
            let box = try #require(fixture.call)
            let call = try #require(try Self.hostCall(from: box.data), "\(fixture.script)")
            #expect(ChatBridge.script(for: call) == fixture.script, "\(fixture.effect)")
        }
    }

    @Test func refusals_otherVersions_unknownEvents_andBadFields() {
        let bad: [(String, String)] = [
            ("parley", #"{"parley":2,"event":"chat_closed"}"#),
            ("parley", #"{"event":"chat_closed"}"#),
            ("parley", #"{"parley":1,"event":"launch_missiles"}"#),
            ("parley", #"{"parley":1,"event":"chat_started","conversation_id":"not-an-id"}"#),
            ("parley", #"{"parley":1,"event":"open_url","url":"javascript:alert(1)"}"#),
            ("parley", #"{"parley":1,"event":"unread_changed","count":-1}"#),
            ("parley", #"[1,2]"#),
            ("IOSChatStarted", #""cnv_nope""#),
            ("IOSDownloadAttachment", #""file:///etc/passwd""#),
            ("SomethingElse", #""""#),
        ]
        for (handler, body) in bad {
            #expect(throws: ChatBridge.DecodingFailure.self, "\(handler) \(body)") {
                try ChatBridge.decode(handler: handler, body: Data(body.utf8))
            }
        }
    }

    @Test func scripts_keepWhatTheAppPassesInsideTheArgument() {
        let sly = ChatBridge.CustomerData(name: "Ada\"); alert(1); (\"", email: "a@example.com\u{2028}x", attributes: ["k": "</script>\\"])
        let script = ChatBridge.script(for: .customerData(sly))
        #expect(script == #"window.Parley.receive({"attributes":{"k":"</script>\\"},"call":"customer_data","email":"a@example.com\u2028x","name":"Ada\"); alert(1); (\"","parley":1})"#)
        // The argument is JSON: it parses back to what was given.
        let argument = String(script.dropFirst("window.Parley.receive(".count).dropLast())
        let parsed = (try? JSONSerialization.jsonObject(with: Data(argument.utf8))) as? [String: Any]
        #expect(parsed?["name"] as? String == sly.name)
        #expect(parsed?["email"] as? String == sly.email)
    }

    @Test func pageAddress_andNavigation_followTheLinkPolicy() throws {
        let server = try #require(URL(string: "https://chat.example.com/support"))
        let app = try #require(AppID(validating: "app_01M7ZTMFGRT0845FK7V0KF9X98"))
        let page = ChatPageAddress(serverURL: server, appID: app, locale: "de", theme: .dark)
        #expect(page.url.absoluteString == "https://chat.example.com/support/chat/?app=app_01M7ZTMFGRT0845FK7V0KF9X98&locale=de&theme=dark")

        var links = ChatLinks(policy: LinkPolicy(insideHosts: ["help.example.com"], otherLinks: .outside))
        let url = { (text: String) in URL(string: text)! }
        #expect(links.navigation(to: url("https://chat.example.com/v1/appearance"), from: page) == .load)
        #expect(links.navigation(to: url("https://help.example.com/returns"), from: page) == .load)
        #expect(links.navigation(to: url("https://shop.example.com/"), from: page) == .openOutside(url("https://shop.example.com/")))
        #expect(links.navigation(to: url("javascript:alert(1)"), from: page) == .cancel)
        #expect(links.navigation(to: url("https://chat.example.com:8443/"), from: page) == .openOutside(url("https://chat.example.com:8443/")))

        // The app may override a web link, never turn a non-web link into one.
        links.override = { link, decided in link.host == "shop.example.com" ? .block : (link.scheme == "javascript" ? .openInside : decided) }
        #expect(links.decide(url("https://shop.example.com/")) == .block)
        #expect(links.decide(url("javascript:alert(1)")) == .ignore)
        links.policy.otherLinks = .block
        #expect(links.navigation(to: url("https://elsewhere.example.net/"), from: page) == .cancel)
    }

    static func hostCall(from data: Data) throws -> ChatBridge.HostCall? {
        guard let object = try JSONSerialization.jsonObject(with: data) as? [String: Any], let name = object["call"] as? String else { return nil }
        switch name {
        case "close_chat": return .closeChat
        case "show_close_button": return (object["visible"] as? Bool).map(ChatBridge.HostCall.showCloseButton)
        case "set_locale": return (object["locale"] as? String).map(ChatBridge.HostCall.setLocale)
        case "customer_data":
            return .customerData(ChatBridge.CustomerData(
                name: object["name"] as? String, email: object["email"] as? String,
                attributes: object["attributes"] as? [String: String], userToken: object["user_token"] as? String))
        default: return nil
        }
    }
}

/// Decodes any JSON into Foundation values (for JSONSerialization).
private struct AnyJSON: Decodable {
    var value: Any
    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() { value = NSNull() }
        else if let bool = try? container.decode(Bool.self) { value = bool }
        else if let int = try? container.decode(Int64.self) { value = int }
        else if let double = try? container.decode(Double.self) { value = double }
        else if let string = try? container.decode(String.self) { value = string }
        else if let array = try? container.decode([AnyJSON].self) { value = array.map(\.value) }
        else { value = try container.decode([String: AnyJSON].self).mapValues(\.value) }
    }
}
