import Foundation
import ParleyCore

extension ChatBridge {
    /// What the app may ask of the page.
    public enum HostCall: Hashable, Sendable {
        /// End the chat from the app (Cisco's `CloseChat`).
        case closeChat
        /// Show or hide the page's close button (hide it when the app draws its own).
        case showCloseButton(Bool)
        /// Who the visitor is, answering ``PageEvent/customerDataRequested`` (or sent unasked).
        case customerData(CustomerData)
        /// Switch the page's language (`en`, `de`, …).
        case setLocale(String)
    }

    /// The visitor as the app knows them. With a `userToken` (verified identity) the server
    /// trusts the token's claims, not the name and email given here.
    public struct CustomerData: Hashable, Sendable, Codable {
        public var name: String?
        public var email: String?
        public var attributes: [String: String]?
        /// A user token signed by the app's backend (`IdentitySettings`).
        public var userToken: String?

        public init(name: String? = nil, email: String? = nil, attributes: [String: String]? = nil, userToken: String? = nil) {
            self.name = name
            self.email = email
            self.attributes = attributes
            self.userToken = userToken
        }

        enum CodingKeys: String, CodingKey { case name, email, attributes, userToken = "user_token" }
    }

    /// The call as the page receives it: `{"call": "show_close_button", "parley": 1, "visible": false}`.
    public static func message(for call: HostCall) -> [String: JSONFragment] {
        var message: [String: JSONFragment] = ["parley": .number(Double(version))]
        switch call {
        case .closeChat:
            message["call"] = .string("close_chat")
        case .showCloseButton(let visible):
            message["call"] = .string("show_close_button")
            message["visible"] = .bool(visible)
        case .customerData(let data):
            message["call"] = .string("customer_data")
            if let name = data.name { message["name"] = .string(name) }
            if let email = data.email { message["email"] = .string(email) }
            if let attributes = data.attributes { message["attributes"] = .object(attributes.mapValues(JSONFragment.string)) }
            if let token = data.userToken { message["user_token"] = .string(token) }
        case .setLocale(let locale):
            message["call"] = .string("set_locale")
            message["locale"] = .string(locale)
        }
        return message
    }

    /// The JavaScript the app evaluates in the web view to make `call`:
    /// `window.Parley.receive({"call":"close_chat","parley":1})`. The argument is JSON (keys
    /// sorted, so the same call always makes the same script), which is also a JavaScript
    /// expression: nothing the app passes can break out of it.
    public static func script(for call: HostCall) -> String {
        "window.Parley.receive(" + JSONFragment.object(message(for: call)).text + ")"
    }
}

/// A JSON value, written compactly with sorted keys: what the bridge's scripts are made of.
public enum JSONFragment: Hashable, Sendable {
    case string(String)
    case number(Double)
    case bool(Bool)
    case object([String: JSONFragment])

    /// Compact JSON text, keys sorted, `/` not escaped.
    public var text: String {
        switch self {
        case .string(let value): return Self.quoted(value)
        case .number(let value): return value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : String(value)
        case .bool(let value): return value ? "true" : "false"
        case .object(let members):
            return "{" + members.keys.sorted().map { Self.quoted($0) + ":" + members[$0]!.text }.joined(separator: ",") + "}"
        }
    }

    /// A JSON string literal. Besides JSON's own escapes, U+2028 and U+2029 are escaped: older
    /// JavaScript engines end a line at them, even inside a string.
    static func quoted(_ text: String) -> String {
        var out = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case "\u{2028}": out += "\\u2028"
            case "\u{2029}": out += "\\u2029"
            default:
                if scalar.value < 0x20 {
                    out += String(format: "\\u%04x", scalar.value)
                } else {
                    out.unicodeScalars.append(scalar)
                }
            }
        }
        return out + "\""
    }
}
