import Foundation
import ParleyCore

/// The contract between the visitor chat page (`/chat/`, shown in a web view) and the app that
/// hosts it: what the page tells the app, and what the app may ask of the page.
///
/// Pure and platform-free, so every rule of the bridge is tested on Linux against the messages
/// the real page posts (the Chromium suite records them into the same fixtures). `ParleyChatView`
/// on iOS only moves bytes between a `WKWebView` and this type.
///
/// The page posts a JSON object, `{"parley": 1, "event": "chat_started", "conversation_id": "cnv_…"}`,
/// to the `parley` message handler on iOS and to `ParleyAndroid.postMessage(json)` on Android.
/// An app written for Cisco ECE's mobile chat template registers Cisco's handler names instead
/// (`IOSChatStarted`, `IOSChatEnded`, …, whose bodies are plain strings); they decode to the same
/// events. The app answers with scripts made by ``script(for:)``, which call
/// `window.Parley.receive({…})` (Cisco's `MobileInterface` functions work too, for old apps).
public enum ChatBridge {
    /// The bridge's version, sent in every message as `parley`.
    public static let version = 1
    /// The iOS message handler the page posts to (`window.webkit.messageHandlers.parley`).
    public static let handlerName = "parley"
    /// The Android JavaScript interface the page posts to (`window.ParleyAndroid.postMessage`).
    public static let androidInterfaceName = "ParleyAndroid"
    /// Cisco ECE's iOS handler names, which the page also posts to when the app registered them.
    public static let ciscoHandlerNames = [
        "IOSChatStarted", "IOSSetSessionId", "IOSChatClosed", "IOSChatEnded", "IOSGetCustomerData",
        "IOSSaveTranscript", "IOSPrintTranscript", "IOSDownloadAttachment",
    ]

    /// What the page tells the app.
    public enum PageEvent: Hashable, Sendable {
        /// The page loaded and listens for calls (in its locale).
        case pageReady(locale: String?)
        /// A conversation started (or resumed after a reload).
        case chatStarted(ConversationID)
        /// The visitor pressed the page's close button: the app should dismiss the chat.
        case chatClosed
        /// The conversation ended (nil id from Cisco's handler, which names none).
        case chatEnded(ConversationID?)
        /// The page asks who the visitor is: answer with ``HostCall/customerData(_:)``.
        case customerDataRequested
        /// Save this transcript (an HTML document) as a file.
        case saveTranscript(Transcript)
        /// Print this transcript (an HTML document).
        case printTranscript(Transcript)
        /// Download a file of the conversation.
        case downloadAttachment(Download)
        /// Open a link outside the chat view (the app's browser), as the link policy decided.
        case openURL(URL)
        /// The number of agent messages the visitor has not seen changed (a badge).
        case unreadChanged(Int)
    }

    /// A transcript the page hands over.
    public struct Transcript: Hashable, Sendable {
        public var conversationID: ConversationID?
        /// A file name such as `transcript-cnv_….html` (nil from Cisco's handlers).
        public var fileName: String?
        /// A whole HTML document.
        public var html: String
        public init(conversationID: ConversationID?, fileName: String?, html: String) {
            self.conversationID = conversationID
            self.fileName = fileName
            self.html = html
        }
    }

    /// A file to download, and the header that authorizes it (the visitor's token: the app
    /// downloads on the visitor's behalf, as Cisco's template passes its session id).
    public struct Download: Hashable, Sendable {
        public var conversationID: ConversationID?
        public var attachmentID: AttachmentID?
        public var fileName: String?
        public var contentType: String?
        public var size: Int64?
        public var url: URL
        /// The `Authorization` header value to send with the request, when the page gave one.
        public var authorization: String?
        public init(conversationID: ConversationID?, attachmentID: AttachmentID?, fileName: String?, contentType: String?,
                    size: Int64?, url: URL, authorization: String?) {
            self.conversationID = conversationID
            self.attachmentID = attachmentID
            self.fileName = fileName
            self.contentType = contentType
            self.size = size
            self.url = url
            self.authorization = authorization
        }
    }

    /// Why a message from the page was not understood. The page is ours, so this means a page of
    /// another version or something else posting to the handler: log it, do nothing.
    public struct DecodingFailure: Error, Hashable, Sendable, CustomStringConvertible {
        public var description: String
        init(_ description: String) { self.description = description }
    }

    /// Decodes what the page posted to `handler`.
    /// - Parameters:
    ///   - handler: the iOS handler's name (``handlerName`` or one of ``ciscoHandlerNames``), or
    ///     ``androidInterfaceName`` for Android's interface.
    ///   - body: the message body as JSON (`JSONSerialization` of `WKScriptMessage.body`, fragments
    ///     allowed; on Android, the string the page passed).
    /// - Throws: ``DecodingFailure`` for another version, an unknown event or a missing field.
    public static func decode(handler: String, body: Data) throws(DecodingFailure) -> PageEvent {
        let value: Any
        do {
            value = try JSONSerialization.jsonObject(with: body, options: [.fragmentsAllowed])
        } catch {
            throw DecodingFailure("the body is not JSON")
        }
        if handler == handlerName || handler == androidInterfaceName {
            // Android passes the envelope as a string of JSON; iOS as an object.
            if let text = value as? String {
                return try decode(handler: handlerName, body: Data(text.utf8))
            }
            guard let object = value as? [String: Any] else { throw DecodingFailure("the body is not an object") }
            return try decodeEnvelope(object)
        }
        return try decodeCisco(handler: handler, body: value as? String ?? "")
    }

    private static func decodeEnvelope(_ object: [String: Any]) throws(DecodingFailure) -> PageEvent {
        guard let version = object["parley"] as? Int else { throw DecodingFailure("not a Parley bridge message") }
        guard version == ChatBridge.version else { throw DecodingFailure("bridge version \(version); this app speaks \(ChatBridge.version)") }
        guard let event = object["event"] as? String else { throw DecodingFailure("no event") }
        let fields = Fields(object)
        switch event {
        case "page_ready":
            return .pageReady(locale: fields.string("locale"))
        case "chat_started":
            return .chatStarted(try fields.conversationID())
        case "chat_closed":
            return .chatClosed
        case "chat_ended":
            return .chatEnded(try fields.conversationID())
        case "customer_data_requested":
            return .customerDataRequested
        case "save_transcript", "print_transcript":
            guard let html = fields.string("html") else { throw DecodingFailure("\(event) without html") }
            let transcript = Transcript(conversationID: try? fields.conversationID(), fileName: fields.string("file_name"), html: html)
            return event == "save_transcript" ? .saveTranscript(transcript) : .printTranscript(transcript)
        case "download_attachment":
            guard let url = fields.url("url") else { throw DecodingFailure("download_attachment without a url") }
            return .downloadAttachment(Download(
                conversationID: try? fields.conversationID(), attachmentID: fields.string("attachment_id").flatMap(AttachmentID.init(validating:)),
                fileName: fields.string("file_name"), contentType: fields.string("content_type"),
                size: (object["size"] as? NSNumber)?.int64Value, url: url, authorization: fields.string("authorization")))
        case "open_url":
            guard let text = fields.string("url"), LinkPolicy.defaults.decide(text) != .ignore, let url = URL(string: text) else {
                throw DecodingFailure("open_url without an http(s) url")
            }
            return .openURL(url)
        case "unread_changed":
            guard let count = object["count"] as? Int, count >= 0 else { throw DecodingFailure("unread_changed without a count") }
            return .unreadChanged(count)
        default:
            throw DecodingFailure("unknown event \(event)")
        }
    }

    /// Cisco's handlers carry a bare string: a conversation id, a transcript's HTML, a URL, or nothing.
    private static func decodeCisco(handler: String, body: String) throws(DecodingFailure) -> PageEvent {
        switch handler {
        case "IOSChatStarted", "IOSSetSessionId":
            guard let id = ConversationID(validating: body) else { throw DecodingFailure("\(handler) without a conversation id") }
            return .chatStarted(id)
        case "IOSChatClosed": return .chatClosed
        case "IOSChatEnded": return .chatEnded(nil)
        case "IOSGetCustomerData": return .customerDataRequested
        case "IOSSaveTranscript": return .saveTranscript(Transcript(conversationID: nil, fileName: nil, html: body))
        case "IOSPrintTranscript": return .printTranscript(Transcript(conversationID: nil, fileName: nil, html: body))
        case "IOSDownloadAttachment":
            guard let url = URL(string: body), url.scheme == "https" || url.scheme == "http" else {
                throw DecodingFailure("IOSDownloadAttachment without a url")
            }
            return .downloadAttachment(Download(conversationID: nil, attachmentID: nil, fileName: nil, contentType: nil, size: nil,
                                                url: url, authorization: nil))
        default:
            throw DecodingFailure("unknown handler \(handler)")
        }
    }

    private struct Fields {
        let object: [String: Any]
        init(_ object: [String: Any]) { self.object = object }
        func string(_ key: String) -> String? { object[key] as? String }
        func url(_ key: String) -> URL? { string(key).flatMap(URL.init(string:)) }
        func conversationID() throws(DecodingFailure) -> ConversationID {
            guard let id = string("conversation_id").flatMap(ConversationID.init(validating:)) else {
                throw DecodingFailure("no conversation_id")
            }
            return id
        }
    }
}
