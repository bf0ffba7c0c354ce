import Foundation

/// How the chat looks, set per app on the server and overridable in the app (Pyrus'
/// ServiceDeskConfiguration): the chat's title, a welcome message shown first (never stored as an
/// agent's message), a theme colour, the support avatar, and the name the visitor is shown as.
/// Every field is optional: an app's own value wins over the server's (``overridden(by:)``).
public struct Appearance: Hashable, Sendable, Codable {
    /// The chat screen's title ("Support").
    public var title: String?
    /// The welcome message by language tag (`["en": "Hi! How can we help?", "de": "Hallo!"]`).
    public var welcomeMessage: [String: String]?
    /// `#RRGGBB`.
    public var themeColor: String?
    /// An `https` URL of the support avatar image.
    public var avatarURL: String?
    /// How the visitor's own messages are labelled ("You").
    public var visitorDisplayName: String?

    public init(title: String? = nil, welcomeMessage: [String: String]? = nil, themeColor: String? = nil,
                avatarURL: String? = nil, visitorDisplayName: String? = nil) {
        self.title = title
        self.welcomeMessage = welcomeMessage
        self.themeColor = themeColor
        self.avatarURL = avatarURL
        self.visitorDisplayName = visitorDisplayName
    }

    enum CodingKeys: String, CodingKey {
        case title, welcomeMessage = "welcome_message", themeColor = "theme_color", avatarURL = "avatar_url"
        case visitorDisplayName = "visitor_display_name"
    }

    /// These values, with every field `other` sets taking its place.
    public func overridden(by other: Appearance) -> Appearance {
        Appearance(title: other.title ?? title, welcomeMessage: other.welcomeMessage ?? welcomeMessage,
                   themeColor: other.themeColor ?? themeColor, avatarURL: other.avatarURL ?? avatarURL,
                   visitorDisplayName: other.visitorDisplayName ?? visitorDisplayName)
    }

    /// The welcome message for the visitor's preferred languages, best first.
    public func welcomeMessage(for languages: [String]) -> String? {
        welcomeMessage.flatMap { LocalizedText.resolve($0, for: languages) }
    }

    /// Checks what an admin sends: short single-line texts, a `#RRGGBB` colour, an `https` avatar.
    public func check() throws(Validation.Failure) {
        if let title { try Validation.shortText(title, field: "title", maxLength: 80, required: true) }
        if let visitorDisplayName { try Validation.shortText(visitorDisplayName, field: "visitor_display_name", maxLength: 80, required: true) }
        if let welcomeMessage {
            guard welcomeMessage.count <= 20 else { throw Validation.Failure(field: "welcome_message", message: "at most 20 languages") }
            for (language, text) in welcomeMessage {
                guard LocalizedText.isWellFormedTag(language) else {
                    throw Validation.Failure(field: "welcome_message", message: "\(language.prefix(40)) is not a language tag such as en or pt-BR")
                }
                try Validation.messageText(text, field: "welcome_message.\(language)")
            }
        }
        if let themeColor {
            let hex = themeColor.dropFirst()
            guard themeColor.first == "#", hex.count == 6, hex.allSatisfy(\.isHexDigit) else {
                throw Validation.Failure(field: "theme_color", message: "a colour as #RRGGBB")
            }
        }
        if let avatarURL {
            guard avatarURL.count <= 2_000, let url = URL(string: avatarURL), url.scheme == "https", url.host?.isEmpty == false else {
                throw Validation.Failure(field: "avatar_url", message: "an https URL")
            }
        }
    }
}
